"""Capture rules found by trying it on other harnesses' real runs (``../shared/real/wild``): hand-made steps
modelled on the real outputs' shapes, and, where a reader reads the wild file today, the real steps themselves.

1. Scripts in other languages (``node -e``, ``node -p``, ``ruby -e``, ``perl -e``) that print a file.
2. ``git show REV:FILE``, ``git diff``, ``git show REV``, ``git log -p``, ``git blame``.
3. A search line cut in two by a clip marker.
4. Loops whose body reads the loop's file (``for f in ...``, ``xargs``, ``find -exec``, ``while read``).
5. Files without an extension (``Dockerfile``, ``LICENSE``, ``.env``).
"""

from __future__ import annotations

import posixpath
from pathlib import Path

import pytest
from stepping import typed

from rtlab.environment import Capture, Workspace, capture_step, replay
from rtlab.records import Step, Trajectory

ROOT = "/tmp/ai-workflow-repos-56-921673b8/ai-workflow-agent"


def step(command: str, shown: str, *, tool: str = "shell", **fields) -> Step:
    return typed(Step(index=0, tool=tool, command=command, output=shown, shown=shown, **fields))


def cap(command: str, shown: str, *, workspace: Workspace | None = None, **fields) -> Capture:
    s = step(command, shown, **fields)
    c = capture_step(s, cwd=ROOT, root=ROOT, workspace=workspace)
    for r in c.reads:  # every excerpt is the shown text, exactly, and never spans a clip marker
        assert shown[r.start : r.start + len(r.excerpt)] == r.excerpt
        assert not any(
            f.kind == "clip" and r.start < f.end and f.start < r.start + len(r.excerpt) for f in s.frames
        )
    return c


def reads(c: Capture) -> list[tuple[str, str]]:
    return [(r.path, r.excerpt) for r in c.reads]


def run(*steps: tuple[str, str]) -> Trajectory:
    """A trajectory of shell steps (command, shown), working in ROOT."""
    made = []
    for i, (command, shown) in enumerate(steps):
        s = step(command, shown)
        s.index, s.seq = i, i
        made.append(s)
    return Trajectory(id="wild:test", format="test", source_path="-", steps=made, cwd=ROOT)


# ---------------------------------------------------------------------------------------------------------
# 5. files without an extension

# ``ls -la`` as Codex ran it in ai-workflow-agent (SELinux '.' after the mode bits), entries cut down
LS_LA = """total 796
drwxr-xr-x. 12 node node  16384 Dec 21 11:34 .
drwxr-xr-x.  3 node node     31 Dec 21 11:34 ..
-rw-r--r--.  1 node node    485 Dec 21 11:34 .gitignore
drwxr-xr-x.  8 node node  16384 Dec 21 11:34 .git
-rw-r--r--.  1 node node   1322 Dec 21 11:34 Dockerfile
-rw-r--r--.  1 node node  24093 Dec 21 11:34 Jenkinsfile
-rw-r--r--.  1 node node   1069 Dec 21 11:34 LICENSE
-rw-r--r--.  1 node node   9961 Dec 21 11:34 README.md
drwxr-xr-x.  4 node node     49 Dec 21 11:34 jenkins
drwxr-xr-x.  9 node node  16384 Dec 21 11:34 src
"""
PLAIN_LS = "Dockerfile\nJenkinsfile\nLICENSE\nREADME.md\njenkins\nsrc\n"  # the same folder, plain ``ls``


def test_listings_that_tell_files_list_those_without_an_extension() -> None:
    c = cap("ls -la", LS_LA)
    assert c.listed == (".gitignore", "Dockerfile", "Jenkinsfile", "LICENSE", "README.md")
    assert c.folders == (".git", "jenkins", "src")
    assert cap("find . -type f", "./Dockerfile\n./.env\n./src/index.ts\n").listed == (
        "Dockerfile",
        ".env",
        "src/index.ts",
    )
    tree = ".\n├── .env\n├── Makefile\n└── src\n    └── index.ts\n\n1 directory, 3 files\n"
    c = cap("tree -a", tree)
    assert c.listed == (".env", "Makefile", "src/index.ts") and c.folders == ("src",)
    # git ls-files prints tracked files, never folders
    assert cap("git ls-files", "Dockerfile\nLICENSE\nsrc/index.ts\n").listed == (
        "Dockerfile",
        "LICENSE",
        "src/index.ts",
    )
    # ls -F and ls -p mark every folder with '/': an unmarked name (or '*', an executable) is a file
    assert cap("ls -F", "Dockerfile\njenkins/\nsrc/\nrun.sh*\nbuild*\n").listed == (
        "Dockerfile",
        "run.sh",
        "build",
    )
    assert cap("ls -p", PLAIN_LS.replace("jenkins", "jenkins/").replace("src", "src/")).listed == (
        "Dockerfile",
        "Jenkinsfile",
        "LICENSE",
        "README.md",
    )


def test_plain_ls_keeps_the_extension_rule_unless_a_workspace_tells(tmp_path: Path) -> None:
    # plain ls does not tell 'LICENSE' (a file) from 'src' (a folder): only names with an extension are listed
    assert cap("ls", PLAIN_LS).listed == ("README.md",)
    for name in ("Dockerfile", "Jenkinsfile", "LICENSE", "README.md"):
        (tmp_path / name).write_text("x\n")
    (tmp_path / "jenkins").mkdir()
    (tmp_path / "src").mkdir()
    ws = Workspace(tmp_path, agent_root=ROOT)
    c = cap("ls", PLAIN_LS, workspace=ws)
    assert c.listed == ("Dockerfile", "Jenkinsfile", "LICENSE", "README.md") and c.folders == (
        "jenkins",
        "src",
    )


def test_a_folder_with_a_dot_in_its_name_is_not_a_candidate_once_shown_to_be_one() -> None:
    # plain ls: 'v1.2' looks like a file by its name; the same step's or a later step's paths show it is not
    assert cap("ls && cat v1.2/plan.md", "notes.md\nv1.2\n# Plan\n").listed == ("notes.md",)
    assert cap("ls", "notes.md\nv1.2\n").folders == ()
    t = run(("ls", "notes.md\nv1.2\nlib.d\n"), ("cd v1.2 && pwd", f"{ROOT}/v1.2\n"), ("ls lib.d", "a.md\n"))
    tab = replay(t).tab
    assert set(tab.candidates) == {
        "notes.md",
        "lib.d/a.md",
    }  # 'v1.2' (a cd target), 'lib.d' (a parent) dropped
    assert capture_step(t.steps[1], cwd=ROOT, root=ROOT).folders == ("v1.2",)
    # a failed cd shows nothing
    failed = step("cd v9 && ls", "/bin/bash: line 1: cd: v9: No such file or directory\n", exit_code=1)
    assert capture_step(failed, cwd=ROOT, root=ROOT).folders == ()


def test_a_search_of_one_file_without_an_extension_reads_it() -> None:
    # rg searches a folder recursively, printing path prefixes; on a file it prints none
    assert reads(cap("rg -n FROM Dockerfile", "1:FROM node:20-slim\n14:FROM base AS build\n")) == [
        ("Dockerfile", "1:FROM node:20-slim\n14:FROM base AS build\n")
    ]
    assert reads(cap("rg -n archiveArtifacts jenkins", "jenkins/Jenkinsfile:657:archiveArtifacts x\n")) == [
        ("jenkins/Jenkinsfile", "jenkins/Jenkinsfile:657:archiveArtifacts x")
    ]
    # Claude Code's grep on a folder with --include printed a bare path: a folder was searched, nothing read
    shown = f"{ROOT}/tests/unit/secret-masker.test.ts\n"
    c = cap(f'grep -r "__GITHUB_URL_" {ROOT}/tests --include="*.ts" | head -20', shown)
    assert c.reads == () and c.listed == ("tests/unit/secret-masker.test.ts",)
    # -n and a line that does not start with its number: not one file's lines
    assert cap("rg -n x src", "x = 1\n").reads == ()


def test_a_script_opening_a_file_without_an_extension_reads_it() -> None:
    assert reads(
        cap("python3 -c \"print(open('Dockerfile').read())\"", "FROM node:20-slim\nRUN npm ci\n")
    ) == [("Dockerfile", "FROM node:20-slim\nRUN npm ci\n")]
    code = "python3 -c \"from pathlib import Path; print(Path('LICENSE').read_text()[:60])\""
    assert [r.path for r in cap(code, "MIT License\n\nCopyright (c) 2025 tielec\n").reads] == ["LICENSE"]
    assert cap('python3 -c "import sys; print(open(0).read())"', "piped text\n").reads == ()


# ---------------------------------------------------------------------------------------------------------
# 3. a search line cut in two by a clip marker

# ``rg -n "ollama" -n`` in chatbot-ui (a Codex rollout): long Markdown lines; Codex cut the output mid-line
MD = "LM Studio configuration.md"
RG_HEAD = (
    f"{MD}:3:LM Studio is already wired into your `handleLocalChat` like Ollama, so configuration is\n"
    f"{MD}:10:Your `handleLocalChat` will then hit the Ollama-compatible endpoint with `model: chatSettings.mo"
)
RG_TAIL = (
    "del` and `messages: formattedMessages`, which matches the endpoint expectations.\n"
    'components/chat/chat-helpers/index.ts:201:  if (provider === "ollama") {\n'
    "components/chat/chat-helpers/index.ts:233:    const ollamaUrl = process.env.NEXT_PUBLIC_OLLAMA_URL\n"
)
MARKER = "…1812 tokens truncated…"


def test_the_cut_lines_part_before_the_marker_keeps_its_file_the_part_after_is_nobodys() -> None:
    shown = f"Total output lines: 31\n\n{RG_HEAD}{MARKER}{RG_TAIL}"
    c = cap('rg -n "ollama" -n', shown, clipped=True)
    # the fragment after the marker ('del` and ...') could be any file's: the marker hid which files' lines
    # it removed, and the next line is another file's
    assert reads(c) == [
        (MD, RG_HEAD),
        ("components/chat/chat-helpers/index.ts", "\n".join(RG_TAIL.splitlines()[1:])),
    ]  # a search excerpt is its lines as shown, without the last newline


def test_the_part_after_the_marker_is_the_files_whose_lines_surround_it() -> None:
    # a search prints each file's lines together: when the line after the fragment is the same file's as
    # the cut line, so is the fragment (and everything the marker removed)
    tail = f"del` and `messages`.\n{MD}:41:Ollama models are listed by the ollama CLI.\n"
    shown = f"{RG_HEAD}{MARKER}{tail}"
    c = cap('rg -n "ollama"', shown, clipped=True)
    assert reads(c) == [(MD, RG_HEAD), (MD, tail.rstrip("\n"))]  # two excerpts: none spans the marker


def test_a_marker_between_two_lines_leaves_the_next_line_its_file() -> None:
    # Codex's line-based marker falls between lines: the line after it starts with its own path prefix
    head = f"{MD}:3:LM Studio is already wired into your `handleLocalChat` like Ollama.\n"
    tail = 'components/chat/chat-helpers/index.ts:201:  if (provider === "ollama") {\n'
    shown = (
        f"{head}\n[... omitted 12 of 40 lines ...]\n\n{tail}components/chat/chat-helpers/index.ts:233:  x\n"
    )
    c = cap('rg -n "ollama"', shown, clipped=True)
    assert [r.path for r in c.reads] == [MD, "components/chat/chat-helpers/index.ts"]
    assert c.reads[1].excerpt.startswith(tail)


def test_a_cut_line_does_not_end_the_split_between_two_searches() -> None:
    # two searches printed back to back split by their lines' paths; the cut line no longer ends the split
    shown = f"{RG_HEAD}{MARKER}{RG_TAIL}docs/ollama.md:1:# Ollama\n"
    c = cap('rg -n ollama components "LM Studio configuration.md"; rg -n ollama docs', shown, clipped=True)
    assert [r.path for r in c.reads] == [MD, "components/chat/chat-helpers/index.ts", "docs/ollama.md"]


# ---------------------------------------------------------------------------------------------------------
# 2. git: a file at a revision, patches, blame (shapes from a Claude Code run on ai-workflow-agent and a
# mini-swe-agent run on astropy)

JENKINS_AT_REV = (
    "                    archiveArtifacts artifacts: artifactPath, allowEmptyArchive: true\n"
    "                }\n            }\n        }\n\n        success {\n"
)
PATCH = """diff --git a/Jenkinsfile b/Jenkinsfile
index 9acd5aba..67efe836 100644
--- a/Jenkinsfile
+++ b/Jenkinsfile
@@ -657,6 +657,8 @@ pipeline {
                 // keep the artifacts, success or failure
                 // the target repository is cloned under REPOS_ROOT
+                // ai-workflow-agent itself: take them from WORKSPACE
                 if (params.EXECUTION_MODE != 'auto_issue') {
-                    def artifactPath = "${env.REPOS_ROOT}/${env.REPO_NAME}/.ai-workflow/**/*"
+                    def artifactPath = ".ai-workflow/issue-${env.ISSUE_NUMBER}/**/*"
+                    echo "Archiving artifacts from: ${artifactPath}"
                     archiveArtifacts artifacts: artifactPath, allowEmptyArchive: true
                 }
"""
NEW_SIDE = [  # the runs of context and added lines, split where a removed line was
    PATCH.split("@@ pipeline {\n")[1].split("-  ")[0].rstrip("\n"),
    "\n".join(PATCH.splitlines()[10:14]),
]


def test_git_show_of_a_file_at_a_revision_reads_it_at_that_revision() -> None:
    c = cap('git show 7431e120:Jenkinsfile | grep -A 5 "archiveArtifacts" | head -10', JENKINS_AT_REV)
    assert [(r.path, r.revision) for r in c.reads] == [("Jenkinsfile", "7431e120")]
    assert c.reads[0].excerpt == JENKINS_AT_REV.rstrip("\n") + "\n"
    assert [(r.path, r.revision) for r in cap("git show :src/index.ts", "export {};\n").reads] == [
        ("src/index.ts", ":0")  # the index
    ]
    assert [r.path for r in cap("git -C jenkins show HEAD:README.md", "# Jenkins\n").reads] == [
        "jenkins/README.md"
    ]
    assert cap("git show HEAD:CLAUDE.md", "fatal: path 'CLAUDE.md' does not exist in 'HEAD'\n").reads == ()
    # the entry keeps the revision: the tab's show names it, the replay's tables carry it
    tab = replay(run(('git show 7431e120:Jenkinsfile | grep -A 5 "archiveArtifacts"', JENKINS_AT_REV))).tab
    assert tab.read_log[0].revision == "7431e120"
    assert "Jenkinsfile at revision 7431e120" in tab.show("L1").text


def test_a_patch_reads_each_hunks_new_side() -> None:
    c = cap("git diff HEAD Jenkinsfile | head -30", PATCH)
    # 'Jenkinsfile' is the path operand, not a revision: the new side is the working copy
    assert [(r.path, r.revision, r.excerpt) for r in c.reads] == [
        ("Jenkinsfile", None, NEW_SIDE[0]),
        ("Jenkinsfile", None, NEW_SIDE[1]),
    ]
    assert not any(ln.startswith("-") for r in c.reads for ln in r.excerpt.splitlines())
    assert [r.revision for r in cap("git diff --cached", PATCH).reads] == [":0", ":0"]
    assert [r.revision for r in cap("git diff develop HEAD -- Jenkinsfile", PATCH).reads] == ["HEAD", "HEAD"]
    assert [r.revision for r in cap("git diff main...feature", PATCH).reads] == ["feature", "feature"]
    assert [r.revision for r in cap("git diff -M --color=never HEAD~1 HEAD", PATCH).reads] == ["HEAD", "HEAD"]
    # run in a sub-folder, a path the command named keeps its name (git prints it from the repository's top)
    sub = PATCH.replace(" a/Jenkinsfile", " a/jenkins/Jenkinsfile").replace(
        " b/Jenkinsfile", " b/jenkins/Jenkinsfile"
    )
    s = step("git diff -- Jenkinsfile", sub)
    assert [r.path for r in capture_step(s, cwd=f"{ROOT}/jenkins", root=ROOT).reads] == [
        "jenkins/Jenkinsfile"
    ] * 2


def test_commits_name_the_revision_of_their_hunks() -> None:
    shown = (
        "commit 742fe0328fdf0bad803e1929fcc1ef7b1d200b14\nAuthor: yuto-takashi <y.takashi@tielec.net>\n"
        "Date:   Fri Dec 5 10:49:00 2025 +0900\n\n    fix(squash): keep the artifacts\n\n"
        + PATCH
        + "\ncommit f29e3593aa\nAuthor: yuto-takashi <y.takashi@tielec.net>\n\n    earlier\n\n"
        + PATCH
    )
    c = cap("git log -p -2 -- Jenkinsfile", shown)
    assert [r.revision for r in c.reads] == ["742fe0328fdf0bad803e1929fcc1ef7b1d200b14"] * 2 + [
        "f29e3593aa"
    ] * 2
    assert [r.excerpt for r in c.reads] == NEW_SIDE * 2  # commit messages and headers are git's words
    assert [r.revision for r in cap("git show 742fe032", shown.split("\ncommit f29")[0]).reads] == [
        "742fe0328fdf0bad803e1929fcc1ef7b1d200b14"
    ] * 2


def test_a_clip_marker_inside_a_patch_ends_what_is_read_until_a_file_is_named_again() -> None:
    head, tail = PATCH[:420], PATCH[420:]
    shown = f"{head}…300 tokens truncated…{tail}"
    c = cap("git diff", shown, clipped=True)
    assert c.reads and all(r.start + len(r.excerpt) <= len(head) for r in c.reads)  # nothing after the marker


def test_git_listings_of_touched_files() -> None:
    stat = (
        "commit 7431e1200a1c6d226c098b088be071cf52e32374\nMerge: 4e9a4d10 742fe032\n"
        "Author: yuto-takashi <y.takashi@tielec.net>\nDate:   Fri Dec 5 10:49:08 2025 +0900\n\n"
        "    Merge pull request #220 from tielec/fix/jenkinsfile-artifact-path\n\n"
        " src/commands/init.ts           | 24 +++++++++++++-----------\n"
        " src/core/git/squash-manager.ts | 11 ++++++++---\n"
        " 2 files changed, 21 insertions(+), 14 deletions(-)\n"
    )
    c = cap("git show 7431e120 --stat | head -30", stat)
    assert c.reads == () and c.listed == ("src/commands/init.ts", "src/core/git/squash-manager.ts")
    names = "commit daf1b7ed29c9\nAuthor: y <y@t.net>\n\n    [ai-workflow] Initialize\n\n.ai-workflow/issue-221/metadata.json\n"
    assert cap("git show daf1b7ed --name-only | tail -20", names).listed == (
        ".ai-workflow/issue-221/metadata.json",
    )
    assert cap("git diff --name-status HEAD~1", "M\tJenkinsfile\nD\told.ts\nA\tsrc/new.ts\n").listed == (
        "Jenkinsfile",
        "src/new.ts",
    )
    assert (
        cap("git log --oneline -10", "daf1b7ed [ai-workflow] Initialize\n7431e120 Merge pull request\n")
        == Capture()
    )


def test_git_blame_lines_carry_the_files_text() -> None:
    shown = (
        "^5ae1f0e (yuto-takashi 2025-12-01 10:00:00 +0900 657)                 // keep the artifacts\n"
        "67efe836 (yuto-takashi 2025-12-05 10:49:08 +0900 658)                 if (params.EXECUTION_MODE) {\n"
        "00000000 (Not Committed Yet 2025-12-05 11:00:00 +0900 659)\n"
    )
    c = cap("git blame -L 657,659 Jenkinsfile", shown)
    assert [(r.path, r.revision, r.excerpt) for r in c.reads] == [("Jenkinsfile", None, shown.rstrip("\n"))]
    assert [r.revision for r in cap("git blame 4e9a4d10 -- Jenkinsfile", shown).reads] == ["4e9a4d10"]


def test_git_reads_are_kept_beside_a_workspace_with_another_version(tmp_path: Path) -> None:
    (tmp_path / "Jenkinsfile").write_text("pipeline {\n  // the working copy, changed since\n}\n")
    ws = Workspace(tmp_path, agent_root=ROOT)
    c = cap('git show 7431e120:Jenkinsfile | grep -A 5 "archiveArtifacts"', JENKINS_AT_REV, workspace=ws)
    assert [(r.path, r.revision) for r in c.reads] == [("Jenkinsfile", "7431e120")]
    assert [r.excerpt for r in cap("git diff", PATCH, workspace=ws).reads] == NEW_SIDE


# ---------------------------------------------------------------------------------------------------------
# 1. programs in other languages that print a file

PKG = '{\n  "name": "ai-workflow-agent",\n  "version": "0.4.0",\n  "type": "module"\n}\n'


@pytest.mark.parametrize(
    "command",
    [
        "node -e \"console.log(require('fs').readFileSync('package.json', 'utf8'))\"",
        "node -p \"require('fs').readFileSync('package.json', 'utf8')\"",  # -p prints the expression's value
        "node -pe \"require('fs').readFileSync('package.json', 'utf8')\"",
        "node -e \"const fs = require('fs'); const p = 'package.json'; process.stdout.write(fs.readFileSync(p, 'utf8'))\"",
        "node -e \"const path = require('path'); const f = path.join('.', 'package.json'); "
        "const text = require('fs').readFileSync(f, 'utf8'); console.log(text)\"",
        "node - <<'NODE'\nconst fs = require('fs');\nfs.readFile('package.json', 'utf8', (err, data) => {\n"
        "  console.log(data);\n});\nNODE",
        "node - <<'NODE'\nconst base = '.';\nconsole.log(require('fs').readFileSync(`${base}/package.json`, 'utf8'));\nNODE",
        "ruby -e 'puts File.read(\"package.json\")'",
        'perl -e \'open(my $fh, "<", "package.json") or die; print while <$fh>\'',
        "python3 -c \"from pathlib import Path; print(Path('package.json').read_text())\"",
        "python3 - <<'EOF'\nprint(open('package.json').read())\nEOF",
    ],
)
def test_a_one_line_program_printing_a_file_reads_it(command: str) -> None:
    assert reads(cap(command, PKG)) == [("package.json", PKG)]


def test_a_program_whose_output_is_not_the_files_content_reads_nothing() -> None:
    # Codex's node here-document in ai-workflow-agent: reads a file, writes the plan, prints a status line
    command = (
        "node - <<'NODE'\nconst fs = require('fs');\nconst path = '.ai-workflow/pr-451/output/new_content.tmp';\n"
        "const newContent = fs.readFileSync(path, 'utf8');\nconst plan = { changes: newContent };\n"
        "fs.writeFileSync('.ai-workflow/pr-451/output/response-plan.json', JSON.stringify(plan, null, 2));\n"
        "console.log('Wrote .ai-workflow/pr-451/output/response-plan.json');\nNODE"
    )
    c = cap(command, "Wrote .ai-workflow/pr-451/output/response-plan.json\n")
    assert c.reads == () and c.written == (".ai-workflow/pr-451/output/response-plan.json",)
    # computed from the file, not the file: a length, a count
    assert (
        cap("node -e \"console.log(require('fs').readFileSync('src/index.ts', 'utf8').length)\"", "4812\n")
        == Capture()
    )
    assert cap("ruby -e 'puts File.readlines(\"Gemfile\").count'", "12\n") == Capture()
    assert cap("perl -e 'open(F, \"<notes.txt\"); my @l = <F>; print scalar(@l)'", "3\n") == Capture()
    assert cap("node -v", "v20.11.1\n") == Capture()
    c = cap("node -e \"require('fs').writeFileSync('out/plan.json', JSON.stringify({}))\"", "")
    assert c == Capture(written=("out/plan.json",))


def test_several_files_are_split_only_where_the_output_names_them() -> None:
    command = (
        "node -e \"for (const f of ['README.md', 'CLAUDE.md']) { console.log('=== ' + f + ' ==='); "
        "console.log(require('fs').readFileSync(f, 'utf8')); }\""
    )
    shown = "=== README.md ===\n# AI Workflow\n\n=== CLAUDE.md ===\n# Notes for Claude\n"
    assert reads(cap(command, shown)) == [
        ("README.md", "# AI Workflow\n"),
        ("CLAUDE.md", "# Notes for Claude\n"),
    ]
    # the same without headers: capture cannot tell where one file ends, so neither is credited
    unsplit = command.replace("console.log('=== ' + f + ' ==='); ", "")
    assert cap(unsplit, "# AI Workflow\n\n# Notes for Claude\n").reads == ()


def test_line_programs_print_their_files_lines() -> None:
    # perl -ne / ruby -ne run on every line of their files, like awk: the lines are the files'
    assert reads(cap("perl -ne 'print if /TODO/' src/main.c", "// TODO: free the buffer\n")) == [
        ("src/main.c", "// TODO: free the buffer\n")
    ]
    assert [r.path for r in cap("cat notes.txt | perl -lne 'print uc'", "LINE ONE\n").reads] == ["notes.txt"]
    c = cap("perl -pi -e 's/foo/bar/' src/main.c", "")
    assert c.reads == () and c.written == ("src/main.c",)


def test_a_workspace_confirms_what_a_program_printed(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(PKG)
    ws = Workspace(tmp_path, agent_root=ROOT)
    command = "node -e \"console.log(require('fs').readFileSync('package.json', 'utf8'))\""
    assert reads(cap(command, PKG, workspace=ws)) == [("package.json", PKG)]
    # printed something else (the program changed it): not the file
    assert cap(command.replace("console.log(", "console.log('x'+"), "x{}\n", workspace=ws).reads == ()


def test_a_script_action_in_another_language() -> None:
    from rtlab.records import Action

    s = Step(index=0, tool="run_js", command="-", output=PKG, shown=PKG)
    s.action = Action(
        "script",
        command="console.log(require('fs').readFileSync('package.json', 'utf8'))",
        language="javascript",
    )
    assert [r.path for r in capture_step(s, cwd=ROOT, root=ROOT).reads] == ["package.json"]


# ---------------------------------------------------------------------------------------------------------
# 4. loops whose body reads the loop's file

A_MD, B_MD = "# Architecture\nThe agent runs phases.\n", "# Changelog\n## 0.4.0\n"


def test_a_loop_over_several_files_without_separators_credits_none() -> None:
    # unrolled, each iteration's output is one file's, but nothing shows where one ends
    assert (
        cap('for f in ARCHITECTURE.md CHANGELOG.md; do rg -n "agent" "$f"; done', "2:The agent runs\n")
        == Capture()
    )
    assert cap('for f in ARCHITECTURE.md CHANGELOG.md; do cat "$f"; done', A_MD + B_MD).reads == ()
    # one file: the whole output is its
    assert reads(cap('for f in ARCHITECTURE.md; do cat "$f"; done', A_MD)) == [("ARCHITECTURE.md", A_MD)]
    # a header echoed per file splits the output
    c = cap(
        'for f in ARCHITECTURE.md CHANGELOG.md; do echo "== $f"; head -5 "$f"; done',
        f"== ARCHITECTURE.md\n{A_MD}== CHANGELOG.md\n{B_MD}",
    )
    assert reads(c) == [("ARCHITECTURE.md", A_MD), ("CHANGELOG.md", B_MD)]
    # prefixed search lines name their files themselves
    c = cap(
        'for f in ARCHITECTURE.md CHANGELOG.md; do grep -H -n "0.4" "$f"; done', "CHANGELOG.md:2:## 0.4.0\n"
    )
    assert reads(c) == [("CHANGELOG.md", "CHANGELOG.md:2:## 0.4.0")]


def test_a_loop_over_a_command_substitution() -> None:
    # without a workspace the words are unknown: only the echoed headers name the files
    shown = f"== docs/a.md\n{A_MD}== docs/b.md\n{B_MD}"
    c = cap('for f in $(ls docs/*.md); do echo "== $f"; cat "$f"; done', shown)
    assert reads(c) == [("docs/a.md", A_MD), ("docs/b.md", B_MD)]
    # no header: the search's lines are nobody's (never a file named '$f')
    assert (
        cap('for f in $(ls docs/*.md); do grep -n TODO "$f"; done', "3:TODO one\n7:TODO two\n") == Capture()
    )


def test_loops_and_xargs_over_files_a_workspace_resolves(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(A_MD)
    (tmp_path / "docs" / "b.md").write_text(B_MD)
    (tmp_path / "list.txt").write_text("docs/b.md\n")
    ws = Workspace(tmp_path, agent_root=ROOT)
    # one file matched: its output is its own, even with no header
    for command in (
        'for f in $(ls docs/a*.md); do grep -n "agent" "$f"; done',
        "for f in $(find docs -name 'a.md'); do grep -n agent \"$f\"; done",
        "find docs -name 'a.md' -exec grep -n agent {} \\;",
        "find docs -name 'a*' | xargs grep -n agent",
    ):
        assert [r.path for r in cap(command, "2:The agent runs phases.\n", workspace=ws).reads] == [
            "docs/a.md"
        ], command
    assert [
        r.path for r in cap('while read f; do head -2 "$f"; done < list.txt', B_MD, workspace=ws).reads
    ] == ["docs/b.md"]


def test_xargs_and_find_exec() -> None:
    # a literal feeder names the file
    assert reads(cap("echo ARCHITECTURE.md | xargs cat", A_MD)) == [("ARCHITECTURE.md", A_MD)]
    # head on many files at once prints its headers
    shown = f"==> ./docs/a.md <==\n{A_MD}\n==> ./docs/b.md <==\n{B_MD}"
    for command in ("find . -name '*.md' | xargs head -n 5", "find . -name '*.md' -exec head -n 5 {} +"):
        assert [r.path for r in cap(command, shown).reads] == ["docs/a.md", "docs/b.md"], command
    # one run per file: no headers, files unknown: nothing
    assert cap("find . -name '*.md' -exec cat {} \\;", A_MD + B_MD) == Capture()
    # a batch grep prints prefixes; a line number is never taken for a path
    c = cap(
        "find . -name '*.ts' | xargs grep -n SecretMasker",
        "./src/secret-masker.ts:12:export class SecretMasker {\n",
    )
    assert [r.path for r in c.reads] == ["src/secret-masker.ts"]
    assert (
        cap("find . -name '*.ts' | xargs grep -n SecretMasker", "12:export class SecretMasker {\n")
        == Capture()
    )


def test_while_read_loops() -> None:
    shown = f"--- docs/a.md\n{A_MD}--- docs/b.md\n{B_MD}"
    # the feeder's output goes to the loop: the model sees none of it (no listing of '--- docs/b.md')
    c = cap('find docs -name "*.md" | while read f; do echo "--- $f"; head -3 "$f"; done', shown)
    assert reads(c) == [("docs/a.md", A_MD), ("docs/b.md", B_MD)] and c.listed == ()
    c = cap('while IFS= read -r f; do echo "--- $f"; head -3 "$f"; done < list.txt', shown)
    assert reads(c) == [("docs/a.md", A_MD), ("docs/b.md", B_MD)]
    # the list file's own text is not shown by `cat list.txt | while ...`
    c = cap('cat list.txt | while read -r f; do wc -l "$f"; done', "2 docs/a.md\n2 docs/b.md\n")
    assert c.reads == () and c.listed == ("docs/a.md", "docs/b.md")
    # literal feeders are unrolled
    c = cap('printf "%s\\n" docs/a.md docs/b.md | while read f; do echo "--- $f"; cat "$f"; done', shown)
    assert reads(c) == [("docs/a.md", A_MD), ("docs/b.md", B_MD)]


def test_a_program_the_shell_did_not_find_wrote_nothing() -> None:
    # Codex in ai-workflow-agent: python is not installed; the here-document's writes never happened
    command = "python3 - <<'PY'\nfrom pathlib import Path\nPath('out/plan.json').write_text('{}')\nPY"
    assert cap(command, "/bin/bash: line 1: python3: command not found\n", exit_code=127) == Capture()
    assert cap(command, "", exit_code=0).written == ("out/plan.json",)


def test_find_printing_names_at_depth_one() -> None:
    # ``-printf '%f\n'`` prints the name alone; at -maxdepth 1 every name is an entry of the start folder
    assert cap("find jenkins -maxdepth 1 -type f -printf '%f\\n'", "README.md\nJenkinsfile\n").listed == (
        "jenkins/README.md",
        "jenkins/Jenkinsfile",
    )
    assert (
        cap("find jenkins -type f -printf '%f\\n'", "README.md\n").listed == ()
    )  # deeper: the folder is unknown


# ---------------------------------------------------------------------------------------------------------
# the Codex exec streams of ai-workflow-agent (readable today), replayed


@pytest.fixture(scope="module")
def codex_exec(real: Path) -> dict[str, Trajectory]:
    from rtlab.ingest.readers import ReadOptions, get_reader

    folder = real / "wild" / "codex-exec"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    out = {}
    for path in sorted(folder.iterdir()):
        [t] = get_reader("codex").read(path, ReadOptions())
        out[path.name.split("__")[1]] = t
    return out


def _caps(t: Trajectory) -> list[Capture]:
    return [capture_step(s, cwd=s.cwd or t.cwd, root=t.cwd) for s in t.steps]


def test_codex_exec_pr464_read_log_by_hand(codex_exec) -> None:
    """pr-464, step by step: ``ls -la`` of the repository and its folders (files without an extension listed),
    ``grep -n``/``sed -n`` of ``Jenkinsfile`` (read), ``find -maxdepth 1 -printf '%f\\n'`` (listed), two
    Python here-documents that never ran (``python``, ``python3``: command not found: nothing written), two
    ``node`` here-documents (a syntax error; then one that read the Jenkinsfile and the job DSL with
    ``fs.readFileSync`` and printed only ``wrote ...response-plan.json``: written, not read), and a ``cat``
    of the plan."""
    t = codex_exec["pr-464"]
    caps = _caps(t)
    assert len(t.steps) == 22
    finalize = "jenkins/jobs/pipeline/ai-workflow/pr-comment-finalize/Jenkinsfile"
    dsl = "jenkins/jobs/dsl/ai-workflow/ai_workflow_pr_comment_finalize_job.groovy"
    plan = ".ai-workflow/pr-464/output/response-plan.json"
    assert {"Dockerfile", "Jenkinsfile", "LICENSE", ".gitignore", "README.md"} <= set(caps[0].listed)
    assert {".git", ".ai-workflow", "jenkins", "src"} <= set(caps[0].folders)
    assert caps[14].listed == (finalize,)  # ``ls -la`` of its folder: a file without an extension
    assert caps[11].listed == ("jenkins/README.md",)
    assert [r.path for r in caps[9].reads] == ["Jenkinsfile"]  # grep -n of one file: its numbered lines
    assert [r.path for r in caps[10].reads] == ["Jenkinsfile"]
    assert caps[17] == caps[18] == Capture()  # the shell found no python: nothing ran
    assert caps[20].reads == () and [posixpath.basename(w) for w in caps[20].written] == [
        "response-plan.json"
    ]
    assert "wrote " in t.steps[20].shown and "readFileSync(jenkinsPath" in t.steps[20].command
    # why each file is in the read log: step 9/10 (Jenkinsfile), 15 (sed of finalize's Jenkinsfile),
    # 16 (sed of the job DSL), 21 (cat of the plan the node script wrote)
    assert {e.path for e in replay(t).tab.read_log} == {"Jenkinsfile", finalize, dsl, plan}


def test_codex_exec_node_here_documents_write_and_do_not_read(codex_exec) -> None:
    for name, steps in (("pr-451", (22,)), ("pr-436", (10,))):
        t = codex_exec[name]
        caps = _caps(t)
        for i in steps:
            assert t.steps[i].command.startswith("node - <<'NODE'") and t.steps[i].exit_code == 0
            assert caps[i].reads == (), (name, i)
            assert [posixpath.basename(w) for w in caps[i].written] == ["response-plan.json"], (name, i)
    # plain ``ls`` of the same repository: 'Dockerfile', 'Jenkinsfile', 'LICENSE' are not told from folders
    listed = set(_caps(codex_exec["pr-436"])[0].listed)
    assert "README.md" in listed and not listed & {"Dockerfile", "Jenkinsfile", "LICENSE", "docs", "src"}


# ---------------------------------------------------------------------------------------------------------
# a Claude Code stream (no reader yet): its Bash calls taken from the raw JSON, typed as shell steps


def _claude_bash_steps(path: Path) -> list[Step]:
    """Each Bash ``tool_use`` with its ``tool_result`` text, in order (a few lines of JSON walking)."""
    import json

    commands: dict[str, str] = {}
    steps: list[Step] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        content = (json.loads(line).get("message") or {}).get("content") if line.strip() else None
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block.get("name") == "Bash":
                commands[block["id"]] = block["input"]["command"]
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in commands:
                text = block.get("content")
                if isinstance(text, list):
                    text = "".join(b.get("text", "") for b in text if b.get("type") == "text")
                command = commands[block["tool_use_id"]]
                steps.append(typed(Step(len(steps), "shell", command, {"command": command}, text, text)))
    return steps


def test_claude_code_git_steps(real: Path) -> None:
    path = (
        real
        / "wild"
        / "claude-code-stream"
        / "tielec__issue-221__04_implementation__execute__agent_log_raw.txt"
    )
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    steps = _claude_bash_steps(path)
    assert len(steps) == 31
    caps = {s.index: capture_step(s, cwd=ROOT, root=ROOT) for s in steps}
    by_command = {s.command: caps[s.index] for s in steps}
    # git show REV:FILE | grep ...: Jenkinsfile at each revision
    for rev in ("7431e120", "4e9a4d10"):
        c = by_command[f'git show {rev}:Jenkinsfile | grep -A 5 "archiveArtifacts" | head -10']
        assert [(r.path, r.revision) for r in c.reads] == [("Jenkinsfile", rev)]
    # git diff HEAD Jenkinsfile: the hunk's context and added lines, split at the removed one
    c = by_command["git diff HEAD Jenkinsfile | head -30"]
    assert [(r.path, r.revision) for r in c.reads] == [("Jenkinsfile", None)] * 2
    assert all(not ln.startswith("-") for r in c.reads for ln in r.excerpt.splitlines())
    # --stat and --name-only list what the commit touched; git log --oneline reads and lists nothing
    assert by_command["git show 7431e120 --stat | head -30"].listed == (
        "src/commands/init.ts",
        "src/core/git/squash-manager.ts",
    )
    assert by_command["git show daf1b7ed --name-only | tail -20"].listed == (
        ".ai-workflow/issue-221/metadata.json",
    )
    assert by_command["git log --oneline -10"] == Capture()
    # a merge commit's header alone shows no file
    assert by_command["git show 742fe032 | head -150"] == Capture()
