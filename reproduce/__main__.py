"""``python -m reproduce``: list, make and document the project's artifacts.

    python -m reproduce list                 # every artifact: source, duration, outputs
    python -m reproduce list --names         # their names only, one a line (make artifacts)
    python -m reproduce make table2          # run its steps, then render its docs tables
    python -m reproduce make table2 --render-only  # the table from the runs present
    python -m reproduce make NAME --dry-run  # print the steps only
    python -m reproduce make NAME --smoke DIR  # the same outputs on tiny data, into DIR
    python -m reproduce readme [--check]     # results/README.md from the registry
    python -m reproduce owner results/X      # the artifact that writes a results file
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import runpy
import shlex
import subprocess
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

from reproduce import ARTIFACTS, SOURCES, get_artifact
from reproduce.readme import render_readme
from reproduce.registry import Artifact, executable

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def command(step: tuple[str, ...], out: Path = RESULTS, work: Path | None = None) -> list[str]:
    """A step's argument list with this environment's ``kernreg`` and ``python``, ``{out}``
    standing for the results folder ``out`` and ``{work}`` for the scratch folder ``work``
    (a smoke run's run folders)."""
    return [executable(step[0]), *(_placed(word, out, work) for word in step[1:])]


def _placed(word: str, out: Path, work: Path | None) -> str:
    word = word.replace("{out}", str(out))
    return word if work is None else word.replace("{work}", str(work))


def run_in_process(words: list[str]) -> int:
    """Run a step's argument list (after :func:`command`) in this interpreter, from the
    repository's root: ``kernreg`` through its click command, ``python -m M`` / ``python
    FILE`` / ``python -c CODE`` as ``__main__``; its exit status (1 for an exception, whose
    traceback is printed). Saves each smoke step the interpreter's start and imports (2 s)."""
    from reproduce.kernreg_call import exit_status, kernreg_status  # kernreg's imports: 1.5 s

    program, args = Path(words[0]).name, words[1:]
    saved_argv, saved_environment, saved_cwd = sys.argv[:], dict(os.environ), os.getcwd()
    try:
        os.chdir(ROOT)  # (contextlib.chdir is Python 3.11's)
        if program == "kernreg":
            return kernreg_status(*args)
        if args[0] == "-m":
            sys.argv = [args[1], *args[2:]]
            with warnings.catch_warnings():
                # a module a test imported before runs afresh as __main__ all the same
                warnings.filterwarnings("ignore", "'.*' found in sys.modules after import",
                                        RuntimeWarning)
                runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        elif args[0] == "-c":
            sys.argv = ["-c", *args[2:]]
            exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})
        else:
            sys.argv = list(args)
            runpy.run_path(args[0], run_name="__main__")
    except SystemExit as stop:
        return exit_status(stop)
    except Exception:  # the step's failure, reported as a subprocess's would be
        traceback.print_exc()
        return 1
    finally:  # a step's argv, folder and environment (thread variables) end with it
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        if dict(os.environ) != saved_environment:
            os.environ.clear()
            os.environ.update(saved_environment)
    return 0


def split_redirect(step: tuple[str, ...]) -> tuple[tuple[str, ...], str | None]:
    """A step's words and the file its standard output goes to (``… > results/x.txt``)."""
    if ">" in step:
        at = step.index(">")
        return step[:at], step[at + 1]
    return step, None


def make(artifact: Artifact, dry_run: bool = False, render_only: bool = False,
         smoke: Path | None = None, in_process: bool = False) -> int:
    """Run ``artifact``'s steps from the repository's root (``render_only``: those from its
    ``render_from`` on; ``smoke``: its smoke steps, writing into that folder, their run folders
    into a scratch folder removed after; ``in_process``: in this interpreter, see
    :func:`run_in_process`), then render the docs tables its outputs feed (not after a smoke
    run); the first step that fails stops it (its exit status is returned)."""
    with tempfile.TemporaryDirectory(prefix=f"{artifact.name}-work-") as work:
        return _make(artifact, dry_run, render_only, smoke, in_process, Path(work))


def _make(artifact: Artifact, dry_run: bool, render_only: bool, smoke: Path | None,
          in_process: bool, work: Path) -> int:
    steps = artifact.steps
    if smoke is not None:
        if not artifact.smoke:
            print(f"{artifact.name}: no smoke steps", file=sys.stderr)
            return 2
        steps = artifact.smoke
    if render_only:
        if artifact.render_from is None:
            print(f"{artifact.name}: no render-only steps (every step runs something)",
                  file=sys.stderr)
            return 2
        steps = steps[artifact.render_from:]
    for step in steps:
        print("+ " + shlex.join(step), flush=True)
        if dry_run:
            continue
        words, stdout = split_redirect(step)
        out = RESULTS if smoke is None else smoke
        argv = command(words, out, work)
        if in_process:
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed) if stdout else contextlib.nullcontext():
                code = run_in_process(argv)
            text = printed.getvalue()
        elif stdout is None:
            code = subprocess.call(argv, cwd=ROOT)
        else:
            done = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, text=True)
            code, text = done.returncode, done.stdout
        if stdout is not None and code == 0:
            # the script prints its result: the file is written only when it succeeds
            (ROOT / _placed(stdout, out, work)).write_text(text, encoding="utf-8")
        if code != 0:
            print(f"{artifact.name}: step failed with exit status {code}: {shlex.join(step)}",
                  file=sys.stderr)
            return code
    if artifact.doc_tables and not dry_run and smoke is None:
        return subprocess.call([sys.executable, "-m", "reproduce.render_docs"], cwd=ROOT)
    return 0


#: The one folder of the repository a smoke run may write into (ignored by git, as
#: ``kernreg run --smoke``'s default).
SMOKE_INSIDE = RESULTS / "smoke"


def smoke_folder_problem(folder: str | None) -> str:
    """Why ``--smoke DIR`` may not be written into (empty when it may): a smoke run's tiny
    numbers never go over the committed results or into the repository's own folders."""
    if folder is None:
        return ""
    if not folder.strip():
        return "'': name a folder for the smoke outputs (e.g. /tmp/smoke)"
    where = Path(folder).resolve()
    if where.is_relative_to(ROOT) and not where.is_relative_to(SMOKE_INSIDE):
        return (f"{folder}: inside the repository ({ROOT}), whose results and sources smoke "
                f"numbers would overwrite; give a folder outside it, or under "
                f"{SMOKE_INSIDE.relative_to(ROOT)}/")
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reproduce",
                                     description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    lister = sub.add_parser("list", help="every artifact")
    lister.add_argument("--names", action="store_true",
                        help="the names only, one a line, as make takes them")
    maker = sub.add_parser("make", help="make artifacts by name")
    maker.add_argument("names", nargs="+")
    maker.add_argument("--dry-run", action="store_true", help="print the steps only")
    maker.add_argument("--render-only", action="store_true",
                       help="only the steps that render the outputs from the runs present")
    maker.add_argument("--smoke", metavar="DIR",
                       help="the smoke steps (tiny data, seconds), writing into DIR")
    readme = sub.add_parser("readme", help="write results/README.md from the registry")
    readme.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the file differs")
    owner = sub.add_parser("owner", help="the artifact that writes a results file")
    owner.add_argument("path")
    args = parser.parse_args(argv)

    if args.verb == "list":
        for source in SOURCES:
            for artifact in (a for a in ARTIFACTS.values() if a.source == source):
                if args.names:
                    print(artifact.name.replace("_", "-"))
                else:
                    print(f"{artifact.name:28s} {source:11s} {artifact.duration:10s} "
                          f"{', '.join(artifact.outputs)}")
        return 0
    if args.verb == "make":
        try:
            artifacts = [get_artifact(name) for name in args.names]
        except KeyError as err:
            print(f"reproduce: {err.args[0]}", file=sys.stderr)
            return 2
        problem = smoke_folder_problem(args.smoke)
        if problem:
            print(f"reproduce: --smoke {problem}", file=sys.stderr)
            return 2
        smoke = None if args.smoke is None else Path(args.smoke)
        for artifact in artifacts:
            code = make(artifact, args.dry_run, args.render_only, smoke)
            if code:
                return code
        return 0
    if args.verb == "readme":
        text = render_readme()
        path = RESULTS / "README.md"
        if args.check:
            same = path.is_file() and path.read_text(encoding="utf-8") == text
            print("results/README.md: " + ("up to date" if same else "differs from the registry"))
            return 0 if same else 1
        path.write_text(text, encoding="utf-8")
        print("written: results/README.md")
        return 0
    relative = Path(args.path).resolve().relative_to(RESULTS).as_posix()
    owners = [a.name for a in ARTIFACTS.values() if relative in a.outputs]
    print(", ".join(owners) or f"no artifact writes results/{relative}")
    return 0 if owners else 1


if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:  # `python -m reproduce list | head -1`: the reader has enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)
