"""Limits at every input boundary: file kinds, sizes, encodings, nesting, numbers.

Each hostile input must end in one clear message (exit 2 for the CLI), never a hang, a
memory blow-up or a traceback. Reads that could block run under an alarm, so a regression
fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest

from responder.cli import main
from responder.input_limits import (
    MAX_DEPTH,
    InputRejected,
    check_values,
    decode_text,
    loads_json,
    loads_toml,
    read_bytes,
    read_text,
)
from responder.kb import KBError, load_kb

SYMPTOMS = """\
[[category]]
id = "breathing"
label = "Breathing"

[[symptom]]
id = "cough"
label = "Cough"
category = "breathing"

[[symptom]]
id = "wheezing"
label = "Wheezing"
category = "breathing"
"""
CLASSES = '[[class]]\nid = "irritants"\nlabel = "Irritants"\n'
CHEMICALS = """\
class = "irritants"

[[chemical]]
name = "Chlorine"
symptoms = ["cough", "wheezing"]
sources = ["Test source"]

[[chemical]]
name = "Ammonia"
symptoms = ["cough"]
sources = ["Test source"]
"""


def write_kb(root: Path, chemicals: str = CHEMICALS) -> Path:
    (root / "chemicals").mkdir(parents=True)
    (root / "symptoms.toml").write_text(SYMPTOMS)
    (root / "classes.toml").write_text(CLASSES)
    (root / "chemicals" / "irritants.toml").write_text(chemicals)
    return root


@contextmanager
def no_hang(seconds: int = 10):
    """Fail instead of blocking forever (a FIFO opened for reading waits for a writer)."""

    def alarm(signum, frame):
        raise AssertionError(f"blocked for more than {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def kb_errors(root: Path) -> list:
    with no_hang(), pytest.raises(KBError) as info:
        load_kb(root, strict=False)
    return info.value.issues


def cli(argv, capsys) -> tuple[int, str]:
    with no_hang(20):
        code = main(argv)
    err = capsys.readouterr().err
    return code, err


def assert_one_clean_message(code: int, err: str) -> None:
    assert code == 2
    assert "Traceback" not in err and "Error:" not in err.split(":", 1)[0]
    assert err.strip(), "no message at all"


# -- file kinds -----------------------------------------------------------------------------


@pytest.fixture
def hostile(tmp_path) -> dict[str, Path]:
    """A FIFO, a symlink to /dev/zero, a dangling symlink, a folder and a device."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    dangling = tmp_path / "gone.json"
    dangling.symlink_to(tmp_path / "never-existed.json")
    folder = tmp_path / "folder.json"
    folder.mkdir()
    return {
        "fifo": fifo,
        "zero": zero,
        "dangling": dangling,
        "folder": folder,
        "device": Path("/dev/null"),
    }


@pytest.mark.parametrize(
    "name, words",
    [
        ("fifo", "named pipe (FIFO)"),
        ("zero", "character device"),
        ("dangling", "symbolic link to"),
        ("folder", "a folder"),
        ("device", "character device"),
    ],
)
def test_read_refuses_what_is_not_a_regular_file(hostile, name, words):
    with no_hang(), pytest.raises(InputRejected) as info:
        read_bytes(hostile[name], "settings file")
    assert words in str(info.value)
    assert info.value.kind == ("missing" if name == "dangling" else "kind")


@pytest.mark.parametrize("name", ["fifo", "zero", "dangling", "folder"])
def test_interchange_json_that_is_not_a_file_exits_2(hostile, name, capsys):
    code, err = cli(["eval", "--kb", str(hostile[name])], capsys)
    assert_one_clean_message(code, err)
    assert str(hostile[name]) in err


@pytest.mark.parametrize("name", ["fifo", "zero", "dangling"])
def test_csv_that_is_not_a_file_exits_2(hostile, tmp_path, name, capsys):
    target = tmp_path / f"{name}.csv"
    target.symlink_to(hostile[name])  # a link to the FIFO / device / dangling link
    code, err = cli(["kb", "check", str(target)], capsys)
    assert code == 2 and "Traceback" not in err
    assert any(w in err for w in ("FIFO", "device", "no such file", "does not exist"))


@pytest.mark.parametrize(
    "name, words",
    [("fifo", "named pipe"), ("zero", "character device"), ("dangling", "does not exist")],
)
def test_hostile_chemical_files_are_reported_not_skipped_or_waited_on(
    tmp_path, hostile, name, words
):
    root = write_kb(tmp_path / "kb")
    (root / "chemicals" / "extra.toml").symlink_to(hostile[name])
    issues = kb_errors(root)
    assert len(issues) == 1
    assert issues[0].file.endswith("extra.toml") and words in issues[0].problem


def test_fifo_as_the_vocabulary_is_reported(tmp_path):
    root = write_kb(tmp_path / "kb")
    (root / "symptoms.toml").unlink()
    os.mkfifo(root / "symptoms.toml")
    issues = kb_errors(root)
    assert any("named pipe" in i.problem and i.file.endswith("symptoms.toml") for i in issues)


# -- sizes and encodings --------------------------------------------------------------------


def test_size_cap_refuses_without_reading(tmp_path):
    big = tmp_path / "big.toml"
    with open(big, "wb") as fh:  # sparse: 2 GB claimed, nothing written
        fh.truncate(2 * 1024**3)
    with pytest.raises(InputRejected) as info:
        read_bytes(big, "settings file")
    assert info.value.kind == "size" and "2.0 GB" in str(info.value)


def test_a_file_that_lies_about_its_size_is_cut_off():
    # /proc files report size 0 but hold more: reading stops at the cap
    with pytest.raises(InputRejected) as info:
        read_bytes("/proc/self/maps", "settings file", max_bytes=64)
    assert info.value.kind == "size"


@pytest.mark.parametrize(
    "data, words, line",
    [
        ("héllo".encode("utf-16"), "UTF-16", 1),
        (b"ok\nstill ok\ncaf\xe9\n", "not UTF-8", 3),
        (b"a = 1\n\x00\x00\x00", "NUL byte", 2),
    ],
)
def test_encodings(data, words, line):
    with pytest.raises(InputRejected) as info:
        decode_text(data, "f.toml", "settings file")
    assert words in str(info.value) and info.value.line == line


def test_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"matrix": [[0, 1], [1, 0]]}).encode())
    assert loads_json(read_text(path, "interchange JSON file"), "x")["matrix"] == [[0, 1], [1, 0]]


# -- nesting and numbers --------------------------------------------------------------------


def test_deep_json_nesting_is_one_message():
    deep = "[" * 1000 + "]" * 1000
    with pytest.raises(InputRejected) as info:
        loads_json(deep, "f.json")
    assert info.value.kind == "depth"
    ok = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    loads_json(ok, "f.json")
    with pytest.raises(InputRejected):
        loads_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "f.json")


def test_deep_toml_nesting_is_one_message():
    with pytest.raises(InputRejected) as info:
        loads_toml("a = " + "[" * 1000 + "]" * 1000, "f.toml")
    assert info.value.kind == "depth"


@pytest.mark.parametrize(
    "text, words",
    [
        ('{"a": 1e400}', "out of range"),
        ('{"a": NaN}', "not a number JSON allows"),
        ('{"a": -Infinity}', "not a number JSON allows"),
        ("[" + "7" * 5000 + "]", "digits"),
        ('{"a": {"b": [1, 123456789012345678901234567890]}}', "a.b[1]"),
    ],
)
def test_json_numbers_out_of_range(text, words):
    with pytest.raises(InputRejected) as info:
        loads_json(text, "f.json")
    assert info.value.kind == "number" and words in str(info.value)


@pytest.mark.parametrize(
    "text, words",
    [
        ("[noise]\neps = inf", "noise.eps is inf"),
        ("p = nan", "p is nan"),
        ("x = 1.0e999", "x is inf"),
        ("eps = " + "9" * 5000, "far too long"),
    ],
)
def test_toml_numbers_out_of_range(text, words):
    with pytest.raises(InputRejected) as info:
        loads_toml(text, "f.toml")
    assert info.value.kind == "number" and words in str(info.value)


def test_check_values_is_iterative():
    value: list = []
    for _ in range(5000):  # far past the recursion limit
        value = [value]
    with pytest.raises(InputRejected) as info:
        check_values(value, "x")
    assert info.value.kind == "depth"


# -- hostile documents through the CLI --------------------------------------------------------


@pytest.mark.parametrize(
    "doc",
    [
        '{"matrix": [[0, 1], [1, ' + "1" * 5000 + "]]}",  # a 5000-digit cell
        '{"matrix": [[0, 1], [1, 0]], "prior": [1e400, 1]}',
        '{"matrix": ' + "[" * 1000 + "]" * 1000 + "}",
        '{"matrix": [[0, 1], [1, 0]], "prior": [NaN, 1]}',
    ],
)
def test_interchange_json_defects_exit_2(tmp_path, capsys, doc):
    path = tmp_path / "p.json"
    path.write_text(doc)
    code, err = cli(["eval", "--kb", str(path)], capsys)
    assert_one_clean_message(code, err)
    assert len(err.strip().splitlines()) == 1


def test_deep_nesting_in_a_kb_file_is_reported_with_the_file(tmp_path):
    root = write_kb(tmp_path / "kb", CHEMICALS + "\nnotes = " + "[" * 1000 + "]" * 1000 + "\n")
    issues = kb_errors(root)
    assert len(issues) == 1 and "nested too deeply" in issues[0].problem
    assert issues[0].file.endswith("irritants.toml")


@pytest.mark.parametrize("prior", ["1e308", "1e7", "1e-9"])
def test_kb_priors_out_of_range_are_refused(tmp_path, prior):
    # two chemicals at 1e308 overflowed the normalising sum: H(P) = 0 in `kb info`
    text = CHEMICALS.replace(
        'sources = ["Test source"]\n', f'sources = ["Test source"]\nprior = {prior}\n'
    )
    issues = kb_errors(write_kb(tmp_path / "kb", text))
    assert len(issues) == 2 and all("outside" in i.problem for i in issues)
    assert issues[0].line == text.splitlines().index(f"prior = {prior}") + 1


def test_kb_prior_in_range_still_loads(tmp_path):
    text = CHEMICALS.replace(
        'sources = ["Test source"]\n', 'sources = ["Test source"]\nprior = 1e6\n', 1
    )
    kb = load_kb(write_kb(tmp_path / "kb", text), strict=False)
    assert kb.chemicals[0].prior == 1e6
