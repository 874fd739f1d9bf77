"""The verifier as a package of its own: built, installed where there is no Django, and run.

``verifier/`` builds the wheel ``fairdeal-verify`` from the repository's own source
files (``make verifier``). Here the wheel is built, installed with its one dependency
(rfc8785) into a fresh virtual environment that has neither Django nor
``cryptography``, and run, away from the repository, on the spec's example record, on
the corpus (every game and every rules version, ``tests/fairplay/corpus``), on fresh
records of every rules version, on records the server made of every game (with
their commitment log proofs, checked against the key list) and on tampered copies of
them: it says OK where ``python -m fairplay.verify`` does, and fails with the same
first discrepancy where it fails. A module the verifier needs and the wheel lacks
fails these tests.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import importlib
import importlib.util
import json
import random
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from games.catalogue import BUILT_IN
from tests.factories import body, client_for, finished_table, make_users, table_url
from tests.fairplay import test_tlog as tlog_tests
from tests.fairplay.helpers import (
    Timing,
    doc_match,
    play_record,
    resign,
    seat_list,
    signing_public_key_hex,
    spec_blocks,
)
from tests.fairplay.make_corpus import CORPUS

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
# Runs fairplay.verify's main, the command's own function, on many command lines in one
# process (one interpreter start for them all): each line's exit status and output.
DRIVER = """
import contextlib, io, json, sys
import fairplay.verify
results = []
for argv in json.load(sys.stdin):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = fairplay.verify.main(argv)
    results.append([code, out.getvalue(), err.getvalue()])
json.dump({"results": results, "file": fairplay.verify.__file__}, sys.stdout)
"""

Outcome = tuple[int, str, str]


def run(*command: str | Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **kwargs,
    )
    assert done.returncode == 0, f"{command}: {done.stderr}"
    return done


class Installed:
    """The wheel, and a fresh virtual environment it is installed in (and nothing else)."""

    def __init__(self, work: Path) -> None:
        dist = work / "dist"
        run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
            "--quiet", "-w", dist, REPO / "verifier")  # fmt: skip
        (self.wheel,) = dist.glob("fairdeal_verify-*.whl")
        # Its one dependency, the very version the server uses, as a wheel (the pip cache
        # serves it after the first time).
        run(sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
            "--quiet", "-d", dist, f"rfc8785=={installed_version('rfc8785')}")  # fmt: skip
        self.venv = work / "venv"
        run(sys.executable, "-m", "venv", "--without-pip", self.venv)
        self.python = self.venv / "bin" / "python"
        run(sys.executable, "-m", "pip", "--python", self.python, "install", "--no-index",
            "--find-links", dist, "--quiet", self.wheel)  # fmt: skip
        self.home = work / "elsewhere"  # no repository here to import from by mistake
        self.home.mkdir()

    def run(self, *command: str | Path, stdin: str | None = None) -> Outcome:
        done = subprocess.run(
            [str(part) for part in command],
            cwd=self.home,
            env={"PATH": str(self.venv / "bin")},
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return done.returncode, done.stdout, done.stderr

    def python_says(self, script: str) -> Any:
        code, out, err = self.run(self.python, "-c", script)
        assert code == 0, err
        return json.loads(out)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return Installed(tmp_path_factory.mktemp("verifier"))


def verdicts(python: str | Path, argvs: list[list[str]], *, repository: bool) -> list[Outcome]:
    """Each command line's exit status, standard output and error, through fairplay.verify's
    main: the installed wheel's (run away from the repository), or the repository's."""
    done = subprocess.run(
        [str(python), "-c", DRIVER],
        cwd=REPO if repository else Path(python).parent,
        env={"PYTHONPATH": str(REPO), "PATH": ""} if repository else {"PATH": ""},
        input=json.dumps(argvs),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    inside = Path(answer["file"]).is_relative_to(REPO)
    assert inside == repository, answer["file"]
    return [tuple(result) for result in answer["results"]]  # type: ignore[misc]


# -- the spec's example --------------------------------------------------------


def doc_example() -> tuple[dict[str, Any], list[str], str]:
    """The record of docs/fairplay.md section 15, the command line it is shown checked
    with (after the file's name), and the line that command prints."""
    (block,) = spec_blocks("record")
    console = next(
        block
        for block in spec_blocks("console")
        if "python -m fairplay.verify example.json" in block
    )
    command, line = console.strip().splitlines()
    arguments = command.split("python -m fairplay.verify example.json", 1)[1].split()
    return json.loads(block), arguments, line


def flags() -> list[str]:
    """The options the spec's example is checked with, but its key (see doc_example)."""
    _, arguments, _ = doc_example()
    where = arguments.index("--key")
    return arguments[:where] + arguments[where + 2 :]


def test_the_wheel_is_pure_python_and_holds_the_verifier_and_the_rules_alone(
    installed: Installed,
) -> None:
    assert installed.wheel.name.endswith("-py3-none-any.whl")
    names = zipfile.ZipFile(installed.wheel).namelist()
    code = [name for name in names if ".dist-info/" not in name]
    assert all(name.endswith(".py") for name in code)
    assert {
        "fairplay/verify.py",
        "fairplay/signing.py",
        "fairplay/ed25519.py",
        "games/rules/base.py",
        "games/catalogue/rulesets.py",
    } <= set(code)
    for module in BUILT_IN:
        assert module.__name__.replace(".", "/") + "/rules.py" in code
    # Nothing of the server: no Django app, no bot, no look, no registry of games.
    for name in code:
        assert not re.search(r"(models|views|services|apps|keys|private_keys)\.py$", name), name
        assert not re.search(r"/(bots|migrations|management)/|registry|presentation", name), name
        assert not name.endswith(("bot.py", "table.py")), name
    assert "games/catalogue/__init__.py" not in code
    entry_points = next(name for name in names if name.endswith("entry_points.txt"))
    assert "fairdeal-verify = fairplay.verify:main" in zipfile.ZipFile(installed.wheel).read(
        entry_points
    ).decode("utf-8")


def test_the_fresh_environment_has_neither_django_nor_cryptography(installed: Installed) -> None:
    found = installed.python_says(
        "import importlib.util, json, sys\n"
        "print(json.dumps({name: importlib.util.find_spec(name) is not None\n"
        "    for name in ('django', 'cryptography', 'rfc8785', 'fairplay', 'games.bots')}))\n"
    )
    assert found == {
        "django": False,
        "cryptography": False,
        "rfc8785": True,
        "fairplay": True,
        "games.bots": False,
    }
    code, _, err = installed.run(installed.python, "-c", "import django")
    assert code == 1 and "No module named 'django'" in err


def test_the_installed_verifier_knows_every_rules_version_the_server_registers(
    installed: Installed,
) -> None:
    # Each game declares its versions once, in its rules module; the server registers
    # those very rulesets, and the verifier finds them without the registry.
    server = set()
    for module in BUILT_IN:
        declared = importlib.import_module(f"{module.__name__}.rules").RULESETS
        assert declared == module.GAME.versions
        assert all(a is b for a, b in zip(declared, module.GAME.versions, strict=True))
        server |= {ruleset.version for ruleset in declared}
    known = installed.python_says(
        "import json, sys\n"
        "from games.catalogue import rulesets\n"
        "versions = sorted(rulesets.discover())\n"
        "assert not any(name.split('.')[0] in ('django', 'cryptography') for name in sys.modules)\n"
        "print(json.dumps(versions))\n"
    )
    assert set(known) == server


def test_fairdeal_verify_checks_the_spec_s_example_as_the_spec_shows(
    installed: Installed, tmp_path: Path
) -> None:
    envelope, arguments, line = doc_example()
    path = tmp_path / "example.json"
    path.write_text(json.dumps(envelope), encoding="utf-8")
    assert installed.run("fairdeal-verify", path, *arguments) == (0, line + "\n", "")
    # And from standard input, as "-".
    assert installed.run("fairdeal-verify", "-", *arguments, stdin=path.read_text()) == (
        0,
        line + "\n",
        "",
    )
    # The example as the helpers make it again is the same record.
    assert doc_match()["record"] == envelope["record"]


def test_fairdeal_verify_fails_a_tampered_example_with_the_repository_s_words(
    installed: Installed, tmp_path: Path
) -> None:
    envelope, arguments, _ = doc_example()
    for number, tamper in enumerate(TAMPERINGS):
        path = tmp_path / f"tampered-{number}.json"
        path.write_text(json.dumps(tamper(envelope)), encoding="utf-8")
        ours = installed.run("fairdeal-verify", path, *arguments)
        theirs = subprocess.run(
            [sys.executable, "-m", "fairplay.verify", str(path), *arguments],
            cwd=REPO,
            env={"PYTHONPATH": str(REPO), "PATH": ""},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert ours == (theirs.returncode, theirs.stdout, theirs.stderr)
        assert ours[0] == 1 and ours[2].startswith("FAILED: ")


# -- every game and every rules version ----------------------------------------


def _first_chance_card(record: dict[str, Any]) -> None:
    """Swap two cards of the first chance event (the deal), then sign again."""
    for entry in record["log"]:
        for event in entry["events"]:
            outcome = event.get("chance", {}).get("outcome")
            if isinstance(outcome, list) and len(outcome) > 1:
                position = next(
                    (i for i in range(1, len(outcome)) if outcome[i] != outcome[0]), None
                )
                if position is not None:
                    outcome[0], outcome[position] = outcome[position], outcome[0]
                    return
    raise AssertionError("no chance event with two cards")


def _resigned(change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], Any]:
    def tamper(envelope: dict[str, Any]) -> dict[str, Any]:
        tampered = copy.deepcopy(envelope)
        change(tampered["record"])
        return resign(tampered)

    return tamper


def _unsigned(change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], Any]:
    def tamper(envelope: dict[str, Any]) -> dict[str, Any]:
        tampered = copy.deepcopy(envelope)
        change(tampered["record"])
        return tampered

    return tamper


TAMPERINGS: list[Callable[[dict[str, Any]], dict[str, Any]]] = [
    _resigned(_first_chance_card),  # a card dealt otherwise, signed again
    _resigned(lambda record: record["result"]["places"].__setitem__(0, 9)),  # another result
    _resigned(lambda record: record["log"].pop()),  # the last step left out
    _resigned(lambda record: record.update(server_seed="00" * 32)),  # not the committed seed
    _unsigned(lambda record: record.update(table=record["table"] + 1)),  # the signature breaks
]


def fresh_records() -> list[dict[str, Any]]:
    """One new record of each rules version (played now, by the engine as it is now), with
    calls out of turn where the game has them, and two of format 2 (a time control)."""
    records = []
    versions = sorted(
        {
            ruleset.version: ruleset for module in BUILT_IN for ruleset in module.GAME.versions
        }.items()
    )
    for number, (version, ruleset) in enumerate(versions):
        rng = random.Random(f"verifier package {version}")
        seats = ruleset.min_seats
        timing = Timing(deadline_seconds=3600, reserve_seconds=600) if number % 5 == 0 else None
        records.append(
            play_record(
                table=5000 + number,
                seats=seat_list(seats, bots=[seats - 1]),
                server_seed=rng.randbytes(32),
                contributions=[(0, rng.randbytes(24))],
                policy=lambda state, seat, legal, rng=rng: dict(rng.choice(legal)),
                calls=_calls(rng),
                game=ruleset.id,
                version=version,
                timing=timing,
            )
        )
    return records


def _calls(rng: random.Random) -> Callable[[Any], tuple[int, Any] | None]:
    def calls(state: Any) -> tuple[int, Any] | None:
        if rng.random() < 0.3:
            for seat in range(state.seats):
                own = [a for a in state.legal_actions(seat) if state.is_call(a)]
                if own:
                    return seat, dict(rng.choice(own))
        return None

    return calls


def corpus_records() -> list[dict[str, Any]]:
    return [entry["envelope"] for entry in json.loads(gzip.decompress(CORPUS.read_bytes()))]


def test_records_of_every_game_and_version_get_the_repository_s_verdict_genuine_or_tampered(
    installed: Installed, tmp_path: Path
) -> None:
    genuine = corpus_records() + fresh_records()
    versions = {envelope["record"]["ruleset_version"] for envelope in genuine}
    assert versions == {r.version for module in BUILT_IN for r in module.GAME.versions}
    key = ["--key", signing_public_key_hex(), *flags()]
    argvs: list[list[str]] = []
    for number, envelope in enumerate(genuine):
        path = tmp_path / f"record-{number}.json"
        path.write_text(json.dumps(envelope), encoding="utf-8")
        argvs.append([str(path), *key])
        # Every game's records tampered, each in one of the ways, in turn.
        tampered = tmp_path / f"tampered-{number}.json"
        tampered.write_text(
            json.dumps(TAMPERINGS[number % len(TAMPERINGS)](envelope)), encoding="utf-8"
        )
        argvs.append([str(tampered), *key])

    ours = verdicts(installed.python, argvs, repository=False)
    theirs = verdicts(sys.executable, argvs, repository=True)

    for argv, mine, reference in zip(argvs, ours, theirs, strict=True):
        assert mine == reference, argv[0]
    said = [outcome[0] for outcome in ours]
    assert said[0::2] == [0] * len(genuine)  # every genuine record holds
    assert all(code == 1 for code in said[1::2])  # every tampered one fails
    assert all(outcome[2].startswith("FAILED: ") for outcome in ours[1::2])
    # The tamperings are found where they are, not all by the signature.
    words = {outcome[2].split(":")[1] for outcome in ours[1::2]}
    assert len(words) >= 3


def test_fairdeal_verify_names_itself_in_its_usage(installed: Installed) -> None:
    code, out, err = installed.run("fairdeal-verify")
    assert (code, out) == (2, "")
    assert err.startswith("usage: fairdeal-verify ")
    assert "CANNOT JUDGE: " in err


# -- the log only grew ----------------------------------------------------------


def test_fairdeal_verify_log_proves_the_spec_s_log_grew_as_the_repository_does(
    installed: Installed, tmp_path: Path
) -> None:
    # docs/fairplay.md 17.7: the checkpoint of its 7 entries, and one of their first 4
    # signed by the same TEST key, with the documented consistency proof between them;
    # then the 7 signed by another key (a change of key), and a log of 7 rewritten.
    vectors = tlog_tests.vectors()
    old, new, proof = tmp_path / "old.txt", tmp_path / "new.txt", tmp_path / "proof.json"
    old.write_text(tlog_tests.sign(4, bytes.fromhex(vectors["log_root_4"])))
    new.write_text(tlog_tests.documented_checkpoint())
    proof.write_text(
        json.dumps({"old": 4, "new": 7, "proof": vectors["log_consistency_4_7"].split()})
    )
    later_key = Ed25519PrivateKey.generate()
    later = tmp_path / "later.txt"
    later.write_text(tlog_tests.sign(7, bytes.fromhex(vectors["log_root_7"]), later_key))
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(tlog_tests.key_list(tlog_tests.TEST_KEY, later_key)))
    rewritten = tmp_path / "rewritten.txt"
    rewritten.write_text(tlog_tests.sign(7, bytes.fromhex(vectors["log_root_3"])))  # another tree
    key = tlog_tests.TEST_PUBLIC.hex()
    argvs = [
        ["log", str(old), str(new), "--key", key, "--proof", str(proof)],
        ["log", str(old), str(later), "--keys", str(keys), "--proof", str(proof)],
        ["log", str(old), str(later), "--key", key, "--proof", str(proof)],
        ["log", str(old), str(rewritten), "--key", key, "--proof", str(proof)],
        ["log", str(new), str(old), "--key", key],
    ]
    ours = verdicts(installed.python, argvs, repository=False)
    assert ours == verdicts(sys.executable, argvs, repository=True)
    assert [outcome[0] for outcome in ours] == [0, 0, 1, 1, 1]
    assert ours[0][1].startswith("OK the log fairdeal.example/commitments of 7 entries extends")
    assert "the new by key " in ours[1][1]
    assert "the consistency proof does not lead to the root of 7 entries" in ours[3][2]
    assert "the log shrank" in ours[4][2]
    # The command the wheel installs takes the same arguments.
    code, out, _ = installed.run("fairdeal-verify", *argvs[0])
    assert (code, out) == ours[0][:2]


# -- built again, the same bytes --------------------------------------------------


def test_the_wheel_built_from_another_copy_of_the_same_source_is_the_same_bytes(
    installed: Installed, tmp_path: Path
) -> None:
    # A player can compare a wheel a server serves with one built from the source: the
    # build takes no time stamp, path or order from the machine (docs/fairplay.md 14).
    copy_of = tmp_path / "elsewhere"
    ignore = shutil.ignore_patterns("__pycache__", "dist", "*.pyc")
    for folder in ("verifier", "fairplay", "games"):
        # shutil.copy, not copy2: every file gets a new modification time.
        shutil.copytree(REPO / folder, copy_of / folder, ignore=ignore, copy_function=shutil.copy)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
        "--quiet", "-w", tmp_path / "dist", copy_of / "verifier")  # fmt: skip
    (again,) = (tmp_path / "dist").glob("fairdeal_verify-*.whl")
    assert again.name == installed.wheel.name
    assert (
        hashlib.sha256(again.read_bytes()).hexdigest()
        == hashlib.sha256(installed.wheel.read_bytes()).hexdigest()
    )


# -- records the server made ---------------------------------------------------


@pytest.mark.django_db
def test_records_the_server_made_of_every_game_verify_with_the_key_list_as_in_the_repository(
    installed: Installed, tmp_path: Path
) -> None:
    # A table of each game through the services, played a step and resigned: a record
    # as the API serves it (signed when the game ended, with its commitment log section).
    players = make_users("alice", "bob", "charlie", "dave")
    keys = tmp_path / "keys.json"
    keys.write_bytes(client_for().get("/api/fairplay/keys/").content)
    key = body(client_for().get("/api/fairplay/key/"))["public_key"]
    argvs: list[list[str]] = []
    for module in BUILT_IN:
        ruleset = module.GAME.ruleset
        table = finished_table(*players[: ruleset.min_seats], game=ruleset.id, rated=False)
        envelope = body(client_for().get(table_url(table.pk, "record")))
        path = tmp_path / f"{ruleset.id}.json"
        path.write_text(json.dumps(envelope), encoding="utf-8")
        tampered = copy.deepcopy(envelope)
        tampered.pop("transparency", None)  # its table's entries in the log left out
        bare = tmp_path / f"{ruleset.id}-without-log.json"
        bare.write_text(json.dumps(tampered), encoding="utf-8")
        argvs += [[str(path), "--keys", str(keys)], [str(path), "--key", key], [str(bare)]]

    ours = verdicts(installed.python, argvs, repository=False)
    theirs = verdicts(sys.executable, argvs, repository=True)

    assert ours == theirs
    assert [outcome[0] for outcome in ours[0::3]] == [0] * len(BUILT_IN)
    assert [outcome[0] for outcome in ours[1::3]] == [0] * len(BUILT_IN)
    assert all("(in the key list" in outcome[1] for outcome in ours[0::3])
    assert all(outcome[0] == 1 for outcome in ours[2::3])


# -- the build hook ------------------------------------------------------------


def build_hook(repository: Path) -> Any:
    """verifier/hatch_build.py, reading the repository at ``repository``."""
    spec = importlib.util.spec_from_file_location(
        "hatch_build", REPO / "verifier" / "hatch_build.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.REPOSITORY = repository
    return module


def write_modules(root: Path, modules: dict[str, str]) -> None:
    for name, text in modules.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_build_ships_what_the_entry_imports_and_leaves_out_a_package_s_heavy_init(
    tmp_path: Path,
) -> None:
    write_modules(
        tmp_path,
        {
            "app/__init__.py": '"""Nothing."""\n',
            "app/check.py": "import json\nfrom app import words\nfrom .games import rules\n",
            "app/words.py": "def later():\n    from app import deep\n",
            "app/deep.py": "import rfc8785\n",
            "app/games/__init__.py": "from app.games import bot\n",
            "app/games/bot.py": "import django\n",
            "app/games/rules.py": "from app.words import later\n",
            "app/unused.py": "import django\n",
        },
    )
    hook = build_hook(tmp_path)
    shipped = hook.shipped([tmp_path / "app" / "check.py"], {"rfc8785", *sys.stdlib_module_names})
    assert [path.relative_to(tmp_path).as_posix() for path in shipped] == [
        "app/__init__.py",
        "app/check.py",
        "app/deep.py",
        "app/games/rules.py",  # its package's __init__ imports the bot: left out
        "app/words.py",
    ]


@pytest.mark.parametrize("package", ["django.conf", "cryptography.hazmat", "yaml"])
def test_the_build_refuses_a_verifier_module_that_imports_what_it_cannot_ship(
    tmp_path: Path, package: str
) -> None:
    write_modules(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/check.py": "from app import helper\n",
            "app/helper.py": f"def f():\n    import {package}\n",
        },
    )
    hook = build_hook(tmp_path)
    with pytest.raises(RuntimeError) as refused:
        hook.shipped([tmp_path / "app" / "check.py"], {"rfc8785", *sys.stdlib_module_names})
    assert str(refused.value).startswith(f"app/helper.py imports {package}, which the ")
