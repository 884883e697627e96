"""What an output path (-o, --rejects, --report-file) does to what is already there.

A new path or a lone regular file is replaced atomically (temporary file
beside it, renamed at the end); a symlink is followed; devices, FIFOs,
descriptor links (/proc/self/fd/N) and hard-linked files are written in
place.  One `projectivize` run writes all
three outputs, so every rule is checked on every output option.  Devices are
a pseudo-terminal made for the test, never a node under /dev.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tty
from pathlib import Path

import pytest
from typer.testing import CliRunner

from treetool.commands.app import app
from conftest import ROOT
from treetool.formats.files import AtomicOutput, FileAccessError

GOOD = b"1\tA\ta\tDET\tDT\t_\t2\tdet\t_\t_\n2\tdog\tdog\tNOUN\tNN\t_\t0\troot\t_\t_\n\n"
BAD = b"# sent_id = bad\n1\tA\ta\tDET\tDT\t_\tx\tdet\t_\t_\n2\tdog\tdog\tNOUN\tNN\t_\t0\troot\t_\t_\n\n"
OPTIONS = ("-o", "--rejects", "--report-file")


def check_written(option: str, data: bytes) -> None:
    """The bytes each output of `projectivize GOOD+BAD --on-error skip` must receive."""
    if option == "-o":
        assert data == GOOD  # projective: written back unchanged
    elif option == "--rejects":
        assert data == BAD  # the skipped sentence, byte for byte
    else:
        assert json.loads(data)["total"]["sentences"] == 1


def run_projectivize(tmp_path: Path, targets: dict[str, Path | str], umask: int | None = None) -> None:
    """Projectivize GOOD+BAD skipping BAD, each output option to its target.

    In a subprocess with the given umask when the test is about modes (the
    umask is per process); in this process otherwise, which is faster.
    """
    source = tmp_path / "input.conllu"
    source.write_bytes(GOOD + BAD)
    args = ["projectivize", str(source), "--on-error", "skip"]
    for option in OPTIONS:
        args += [option, str(targets[option])]
    if umask is None:
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, (result.stderr, result.exception)
        return
    proc = subprocess.run(
        [sys.executable, "-m", "treetool", *args], cwd=ROOT, capture_output=True, timeout=120,
        preexec_fn=lambda: os.umask(umask),
    )
    assert proc.returncode == 0, proc.stderr.decode()


def names(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o002])
def test_new_files_get_0666_less_the_umask(tmp_path, umask):
    out = tmp_path / "out"
    out.mkdir()
    targets = {option: out / f"new{i}" for i, option in enumerate(OPTIONS)}
    run_projectivize(tmp_path, targets, umask=umask)
    for option, path in targets.items():
        check_written(option, path.read_bytes())
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, option
    assert names(out) == {p.name for p in targets.values()}


def test_overwritten_files_keep_their_mode(tmp_path):
    modes = dict(zip(OPTIONS, (0o640, 0o604, 0o660)))
    targets = {}
    for option, mode in modes.items():
        targets[option] = tmp_path / f"old{mode:o}"
        targets[option].write_bytes(b"old content\n")
        targets[option].chmod(mode)
    run_projectivize(tmp_path, targets, umask=0o077)
    for option, path in targets.items():
        check_written(option, path.read_bytes())
        assert stat.S_IMODE(path.stat().st_mode) == modes[option], option


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file to another user")
def test_overwritten_files_keep_their_owner(tmp_path):
    targets = {option: tmp_path / f"owned{i}" for i, option in enumerate(OPTIONS)}
    for path in targets.values():
        path.write_bytes(b"old content\n")
        os.chown(path, 12345, 23456)
    run_projectivize(tmp_path, targets)
    for option, path in targets.items():
        check_written(option, path.read_bytes())
        assert (path.stat().st_uid, path.stat().st_gid) == (12345, 23456), option


def test_symlinks_survive_and_their_targets_get_the_output(tmp_path):
    links, real = tmp_path / "links", tmp_path / "real"
    links.mkdir()
    real.mkdir()
    targets = {}
    for i, option in enumerate(OPTIONS):
        (real / f"target{i}").write_bytes(b"old content\n")
        targets[option] = links / f"link{i}"
        targets[option].symlink_to(Path("..") / "real" / f"target{i}")
    run_projectivize(tmp_path, targets)
    for i, (option, link) in enumerate(targets.items()):
        assert link.is_symlink(), option
        assert os.readlink(link) == str(Path("..") / "real" / f"target{i}")
        check_written(option, (real / f"target{i}").read_bytes())
    assert names(links) == {f"link{i}" for i in range(3)}  # no temporary file left anywhere
    assert names(real) == {f"target{i}" for i in range(3)}


def test_a_dangling_symlink_creates_its_target(tmp_path):
    targets = {}
    for i, option in enumerate(OPTIONS):
        targets[option] = tmp_path / f"link{i}"
        targets[option].symlink_to(f"missing{i}")
    run_projectivize(tmp_path, targets)
    for i, (option, link) in enumerate(targets.items()):
        assert link.is_symlink()
        check_written(option, (tmp_path / f"missing{i}").read_bytes())


def test_hard_links_are_kept(tmp_path):
    targets = {}
    for i, option in enumerate(OPTIONS):
        targets[option] = tmp_path / f"name{i}"
        targets[option].write_bytes(b"old content\n")
        os.link(targets[option], tmp_path / f"other{i}")
    run_projectivize(tmp_path, targets)
    for i, (option, path) in enumerate(targets.items()):
        other = tmp_path / f"other{i}"
        assert path.stat().st_ino == other.stat().st_ino and path.stat().st_nlink == 2, option
        check_written(option, other.read_bytes())


def read_available(fd: int) -> bytes:
    """Everything readable from ``fd`` now, without waiting for more."""
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except (BlockingIOError, OSError):  # OSError: EIO from a pty master with nothing left
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def test_fifos_are_written_in_place(tmp_path):
    targets, readers = {}, {}
    for i, option in enumerate(OPTIONS):
        targets[option] = tmp_path / f"fifo{i}"
        os.mkfifo(targets[option])
        # Open the reading end first, without blocking, so that the writer's open does not wait.
        readers[option] = os.open(targets[option], os.O_RDONLY | os.O_NONBLOCK)
    try:
        run_projectivize(tmp_path, targets)
        for option, path in targets.items():
            assert stat.S_ISFIFO(path.lstat().st_mode), option
            check_written(option, read_available(readers[option]))
    finally:
        for fd in readers.values():
            os.close(fd)


def test_a_terminal_device_is_written_in_place(tmp_path):
    terminals = [os.openpty() for _ in OPTIONS]
    try:
        for _, follower in terminals:
            tty.setraw(follower)  # bytes through unchanged (no \n -> \r\n)
        targets = {option: os.ttyname(follower) for option, (_, follower) in zip(OPTIONS, terminals)}
        run_projectivize(tmp_path, targets)
        for option, (leader, _) in zip(OPTIONS, terminals):
            assert stat.S_ISCHR(os.stat(targets[option]).st_mode), option
            check_written(option, read_available(leader))
    finally:
        for leader, follower in terminals:
            os.close(leader)
            os.close(follower)


# ------------------------------------------------------- failures keep the old file
def test_a_failed_run_leaves_an_existing_file_intact(tmp_path):
    out = tmp_path / "out.conllu"
    out.write_bytes(b"old content\n")
    source = tmp_path / "input.conllu"
    source.write_bytes(GOOD + BAD)  # the second sentence fails after the first was written
    assert CliRunner().invoke(app, ["filter", str(source), "-o", str(out)]).exit_code == 2
    assert out.read_bytes() == b"old content\n"
    assert names(tmp_path) == {"out.conllu", "input.conllu"}


def test_a_failed_rename_removes_the_temporary_file(tmp_path, monkeypatch):
    out = tmp_path / "out.conllu"
    out.write_bytes(b"old content\n")
    output = AtomicOutput(str(out))
    output.write(GOOD)

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", src)

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(FileAccessError) as caught:
        output.commit()
    assert str(caught.value) == f"{out}: Permission denied" and caught.value.writing
    assert out.read_bytes() == b"old content\n"
    assert names(tmp_path) == {"out.conllu"}


@pytest.mark.parametrize("suffix, module", [(".gz", "gzip"), (".bz2", "bz2"), (".xz", "lzma")])
def test_a_compressed_output_is_complete_when_committed(tmp_path, suffix, module):
    out = tmp_path / f"out.conllu{suffix}"
    with AtomicOutput(str(out)) as output:
        output.write(GOOD * 1000)
    assert __import__(module).decompress(out.read_bytes()) == GOOD * 1000


# ------------------------------------------------- an open descriptor's link
@pytest.fixture
def descriptor_link():
    """/proc/self/fd/1: what /dev/stdout links to on Linux (tests never write to /dev itself)."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc/self/fd")
    return "/proc/self/fd/1"


def filter_to(output: str, stdout) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "treetool", "filter", "-", "-o", output],
        input=GOOD, stdout=stdout, stderr=subprocess.PIPE, cwd=ROOT, timeout=120,
    )


def test_a_descriptor_link_to_a_pipe_is_written_through(descriptor_link):
    proc = filter_to(descriptor_link, subprocess.PIPE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == GOOD


def test_a_descriptor_link_to_a_file_appends_like_the_descriptor(tmp_path, descriptor_link):
    log = tmp_path / "log"
    log.write_bytes(b"previous\n")
    inode = log.stat().st_ino
    with open(log, "ab") as appending:  # as `>> log`
        proc = filter_to(descriptor_link, appending)
    assert proc.returncode == 0, proc.stderr
    assert log.read_bytes() == b"previous\n" + GOOD
    assert log.stat().st_ino == inode
    assert names(tmp_path) == {"log"}
