"""Capture: the environment's own decision, per step, of which files were **read** (their content appears in
what the model was shown) and which were only **listed** (their path appears, their content does not).

:func:`capture_step` returns a :class:`Capture` (``reads``, ``listed``, ``written``); each
:class:`CapturedRead` holds the normalised path and the excerpt exactly as shown
(``step.shown[start:start + len(excerpt)] == excerpt``). Paths go through :func:`rtlab.text._paths.normalize_path`
(the step's cwd, then the workspace root). An excerpt drops blank lines at its two ends and keeps the newline
that ends its last line. The rules, in the order they apply:

Framing (:mod:`rtlab.environment._capture.frame`). Only command output can be content. The step's reader
marks the harness's own words as frames (:attr:`rtlab.records.Step.frames`: Codex's ``Total output lines``
header and truncation markers, OpenHands' middle marker and terminal echo, Pi's notices and exit status, G2B's
per-command frame, editors' headers; see :mod:`rtlab.ingest.readers._frames`); capture cuts them out and knows
no harness. A ``clip`` frame splits an excerpt in two (a clipped observation gives clipped excerpts, never the
marker). Error messages and Python tracebacks at the ends of a command's output are dropped: a command that
printed only an error reads nothing.

Actions. Each step's typed action (:class:`rtlab.records.Action`) says what the call did. ``read PATH``: the
output without its frames is the excerpt; an error reply reads nothing. ``write`` / ``edit``: written.
``search`` prints ``path:N:text`` lines and ``list`` paths, relative to the action's ``base``. ``script``: a
program in its ``language`` (Python unless it says JavaScript, Ruby or Perl; as below). ``shell``: a command
line, one per part when the call ran several.

Shell (:mod:`rtlab.environment._capture.units`, :mod:`rtlab.environment._capture.families`). The command is parsed into pipelines
(``&&``, ``;``, ``|``, here-documents, ``for``/``while``/``if``, subshells, ``bash -c``); ``cd`` changes the
directory for what follows. A pipeline's family is its source's: ``cat``/``head``/``tail``/``sed``/``nl``/
``less``/``awk``/``cut``/``sort``/``jq``/``perl -ne``/... print file content; ``grep``/``rg``/``git grep``/
``semfs grep`` print excerpts (``path:N:text``; one file searched: unprefixed lines are its excerpt, and a
recursive search of one operand without an extension, ``rg x Dockerfile``, searched a file when no line
names one) or lists (``-l``, ``-L``, ``-c``, ``Binary file X matches``); ``ls``/``find``/``tree``/``fd``/
``du``/``wc``/``file``/``stat``/``realpath``/``git ls-files`` list; a trailing ``wc``/``grep -c`` makes a count
(nothing); ``xargs CMD`` and ``find -exec CMD`` make ``CMD`` the source, run on files known only when a literal
``echo``/``printf`` feeds them or a workspace resolves the ``find`` or glob (one file: its output; several:
only ``head``'s headers or ``grep``'s prefixes tell them apart, so ``xargs head`` / ``-exec ... +`` keep
them); redirections, ``tee``, ``sed -i``, ``perl -pi``, ``cp``/``mv``, ``touch`` and scripts that save write
(a command the shell did not find ran nothing). ``echo``/``printf``/``pwd`` print known text, which splits
the output between pipelines; pipelines printed back to back split by line shape (``pwd``, ``ls -l``,
``wc``, prefixed grep lines; a line a clip marker cut is passed over), and pipelines that cannot be told
apart each get all of the text they share, except the iterations of one loop, which get none of it. A
literal missing from the output means, after a failure, that the ``&&`` chain stopped there, and after a
success that the output before it was lost (openai/codex#37207). Loops: over literal words, globs and
``$(ls GLOB)`` a workspace expands, they are unrolled; otherwise (a glob without a workspace, ``$(find
...)``, ``while read f`` fed by a pipeline or a list file) each iteration is found by the body's ``echo ...
$f`` line; a loop known to run over one file gives it the whole output. The loop's feeder (``find ... |
while read f``) prints nothing the model sees. Words are never resolved from earlier steps: capture decides
from the step alone.

git (:mod:`rtlab.environment._capture.git`): ``git show REV:FILE`` reads FILE at REV (the revision kept in
:attr:`CapturedRead.revision`); a patch (``git diff``, ``git show``, ``git log -p``) reads each hunk's context
and added lines as the new side, split where a line was removed, at the commit or revision of the new side;
``git blame`` reads its annotated lines; ``--name-only``/``--name-status``/``--stat`` list. These reads are
never checked against a workspace's copy.

Searches cut by a clip marker: the cut line's part before the marker is its file's (it starts with its
``path:``); its part after the marker is the file's whose lines are on both sides of the marker (a search
prints each file's lines together), or the next line's when it starts with that line's own prefix, else
nobody's; an excerpt never spans the marker.

Programs (:mod:`rtlab.environment._capture.python`; JavaScript, Ruby and Perl one-liners and here-documents
through :mod:`rtlab.environment._capture.scripts`, which sums them up the same way): header lines naming a
file (``FILE: path``) split the output; a program with exactly one input file and no writes that prints what
it read printed that file (a length or a count is not the file); lines that are just paths are listed.

Content matching (:mod:`rtlab.environment._capture.matching`), with a :class:`rtlab.environment._workspace.Workspace`: every read of a
workspace text file is confirmed against the file and trimmed to the matching text (dropped when its
content does not appear; binaries, files outside the workspace, files it lacks and git's reads keep the
structural decision); then whatever no rule attributed is matched line by line against every workspace
file, so a script printing slices is captured to the character. Identical copies are credited to the one
the command named, else to all of them (up to 5).

Listed files: folders are dropped where the output says so (``ls -l`` mode ``d``, a trailing ``/``, so under
``ls -F``/``-p`` an unmarked name is a file, ``tree`` nesting, ``file``'s ``directory``, ``find -type``); where
it does not, a workspace decides when it holds the path, else an entry counts as a file when its name has an
extension (``report.xlsx`` yes, ``Desktop`` no, and so ``Dockerfile``, ``LICENSE`` or ``.env`` from a plain
``ls`` are not listed: nothing tells them from ``src`` or ``.git``), unless the step shows it to be a folder
(a ``cd`` target, a ``dir:`` header, the parent of another path). The folders a step shows are kept in
:attr:`Capture.folders`: the tab never keeps one as a candidate. A path read or written in the same step is
not listed.

Derived values (:class:`CapturedDerived`, :attr:`Capture.derived`): output that is a value computed from files
rather than their content, found where the rules above already decide that an output reads nothing: a
pipeline ending in a count and ``wc`` / ``grep -c`` of files (``count``), ``du`` / ``stat`` / ``ls -l``
(``size``), and what a program printed that no rule attributed to a file it read, from its first to its
last line holding a digit (``computed``). Each keeps the text exactly as shown and its sources (the
pipeline's source files, the operands, the program's inputs). The tab keeps them only when
``TabConfig.derived`` is on; they are left out of :class:`Capture` equality.
"""

from rtlab.environment._capture.core import (
    DERIVED_KINDS,
    Capture,
    CapturedDerived,
    CapturedRead,
    DerivedKind,
    capture_step,
)

__all__ = ["DERIVED_KINDS", "Capture", "CapturedDerived", "CapturedRead", "DerivedKind", "capture_step"]
