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
Python program (as below). ``shell``: a command line, one per part when the call ran several.

Shell (:mod:`rtlab.environment._capture.units`, :mod:`rtlab.environment._capture.families`). The command is parsed into pipelines
(``&&``, ``;``, ``|``, here-documents, ``for``/``while``/``if``, subshells, ``bash -c``); ``cd`` changes the
directory for what follows. A pipeline's family is its source's: ``cat``/``head``/``tail``/``sed``/``nl``/
``less``/``awk``/``cut``/``sort``/``jq``/... print file content; ``grep``/``rg``/``git grep``/``semfs grep``
print excerpts (``path:N:text``; one file searched: unprefixed lines are its excerpt) or lists (``-l``,
``-L``, ``-c``, ``Binary file X matches``); ``ls``/``find``/``tree``/``fd``/``du``/``wc``/``file``/``stat``/
``realpath`` list; a trailing ``wc``/``grep -c`` makes a count (nothing); ``xargs CMD`` and ``find -exec CMD``
make ``CMD`` the source with unnamed files; redirections, ``tee``, ``sed -i``, ``cp``/``mv``, ``touch`` and
scripts that save write. ``echo``/``printf``/``pwd`` print known text, which splits the output between
pipelines; pipelines printed back to back split by line shape (``pwd``, ``ls -l``, ``wc``, prefixed grep
lines), and pipelines that cannot be told apart each get all of the text they share. A literal missing from
the output means, after a failure, that the ``&&`` chain stopped there, and after a success that the output
before it was lost (openai/codex#37207). Loops over literal words are unrolled; a loop over a glob is expanded
against the workspace when there is one, else split at its ``echo ... $f`` lines.

Python (:mod:`rtlab.environment._capture.python`): header lines naming a file (``FILE: path``) split the output; a
script with exactly one input file and no writes printed that file; lines that are just paths are listed.

Content matching (:mod:`rtlab.environment._capture.matching`), with a :class:`rtlab.environment._workspace.Workspace`: every read of a
workspace text file is confirmed against the file and trimmed to the matching text (dropped when its
content does not appear; binaries, files outside the workspace and files it lacks keep the structural
decision); then whatever no rule attributed is matched line by line against every workspace file, so a
script printing slices is captured to the character. Identical copies are credited to the one the command
named, else to all of them (up to 5).

Listed files: folders are dropped where the output says so (``ls -l`` mode ``d``, a trailing ``/``, ``tree``
nesting, ``file``'s ``directory``, ``find -type``); where it does not, a workspace decides when it holds the
path, else an entry counts as a file when its name has an extension (``report.xlsx`` yes, ``Desktop`` no).
A path read or written in the same step is not listed.
"""

from rtlab.environment._capture.core import Capture, CapturedRead, capture_step

__all__ = ["Capture", "CapturedRead", "capture_step"]
