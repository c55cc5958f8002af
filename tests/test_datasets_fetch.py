"""Finding, verifying, downloading and caching files of a generated, test-registered dataset."""

from __future__ import annotations

import bz2
import dataclasses
import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kernreg.datasets import (
    DatasetSpec,
    RemoteFile,
    Source,
    get_spec,
    load_dataset,
    readers,
    register,
    unregister,
)
from kernreg.datasets.preprocess import affine_features, minmax_features
from kernreg.datasets.spec import FileSplit, RowSplit
from kernreg.errors import DataError

N_TRAIN, N_TEST, D = 30, 10, 4


def _libsvm_text(n: int, seed: int, nan_row: int | None = None) -> bytes:
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        values = rng.random(D)
        label = 1 if rng.random() < 0.5 else -1
        entries = " ".join(f"{j + 1}:{'nan' if i == nan_row else f'{v:.6f}'}"
                           for j, v in enumerate(values))
        lines.append(f"{label} {entries}")
    lines[0] = "1" + lines[0][lines[0].index(" "):]  # both labels always present
    lines[1] = "-1" + lines[1][lines[1].index(" "):]
    return ("\n".join(lines) + "\n").encode()


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Toy:
    """A generated two-file LIBSVM dataset, its mirror folder and its registry entry."""

    def __init__(self, root: Path, name: str, *, urls: tuple[str, ...] = (),
                 pin: bool = False) -> None:
        self.name = name
        self.mirror = root / "mirror"
        self.cache = root / "cache"
        self.train = bz2.compress(_libsvm_text(N_TRAIN, 1))
        self.test = _libsvm_text(N_TEST, 2)
        self.files = {"toy.bz2": self.train, "toy.t": self.test}
        (self.mirror / "toy").mkdir(parents=True)
        for fname, data in self.files.items():
            (self.mirror / "toy" / fname).write_bytes(data)
        remote = tuple(
            RemoteFile(fname, urls=tuple(f"{u}/{fname}" for u in urls) or
                       (f"http://127.0.0.1:9/{fname}",),
                       known_hash=None if pin else _sha256(data),
                       mirror_paths=(f"toy/{fname}",))
            for fname, data in self.files.items()
        )
        self.spec = DatasetSpec(
            name=name, title="generated", task="classification",
            n_train=N_TRAIN, n_test=N_TEST, d=D,
            sources=(Source("gen", remote, readers.svmlight(D), "generated files"),),
            split=FileSplit(), raw_labels=(-1.0, 1.0),
            preprocessing=(minmax_features(),), sigma=1.0, m=5, reference="test",
        )

    def load(self, **kwargs: object):
        kwargs.setdefault("mirror", self.mirror)
        kwargs.setdefault("cache_dir", self.cache)
        kwargs.setdefault("offline", True)
        return load_dataset(self.name, **kwargs)


@pytest.fixture
def toy(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Toy]:
    params = getattr(request, "param", {})
    t = Toy(tmp_path, f"toy_{request.node.name}".lower(), **params)
    register(t.spec)
    yield t
    unregister(t.name)


def test_load_from_mirror_then_cache_hit(toy: Toy) -> None:
    first = toy.load()
    assert not first.from_cache
    assert first.X_train.shape == (N_TRAIN, D) and first.X_test.shape == (N_TEST, D)
    assert first.files[0]["sha256"] == hashlib.sha256(toy.train).hexdigest()
    # The cache must not need the raw files any more.
    for f in (toy.mirror / "toy").iterdir():
        f.unlink()
    second = toy.load()
    assert second.from_cache
    np.testing.assert_array_equal(first.X_train, second.X_train)
    np.testing.assert_array_equal(first.y_test, second.y_test)
    assert second.files == first.files


def test_float32_cache_is_separate(toy: Toy) -> None:
    x64 = toy.load()
    x32 = toy.load(dtype="float32")
    assert x32.X_train.dtype == np.float32 and not x32.from_cache
    np.testing.assert_allclose(x32.X_train, x64.X_train, rtol=1e-6)
    with pytest.raises(DataError, match="dtype must be one of"):
        toy.load(dtype="int32")


def test_changed_preprocessing_is_not_served_from_the_old_cache(toy: Toy) -> None:
    first = toy.load()
    assert toy.load().from_cache
    # the same entry with one more step (as Adult gained x → 2x − 1): a new cache key
    unregister(toy.name)
    register(dataclasses.replace(toy.spec, preprocessing=(*toy.spec.preprocessing,
                                                          affine_features(2.0, -1.0))))
    second = toy.load()
    assert not second.from_cache
    np.testing.assert_allclose(second.X_train, 2 * first.X_train - 1)
    assert toy.load().from_cache


def test_checksum_mismatch_in_mirror_is_skipped_and_reported(toy: Toy) -> None:
    (toy.mirror / "toy" / "toy.t").write_bytes(toy.test.replace(b"1:", b"2:", 1))
    with pytest.raises(DataError) as err:
        toy.load()
    text = str(err.value)
    assert "checksum mismatch" in text and "toy.t" in text and "skipped" in text
    assert (toy.mirror / "toy" / "toy.t").exists()  # a mirror is left as it is


def test_checksum_mismatch_in_cache_is_quarantined(toy: Toy) -> None:
    raw = toy.cache / "raw" / toy.name
    raw.mkdir(parents=True)
    (raw / "toy.t").write_bytes(toy.test[:-20])  # a truncated earlier download
    (toy.mirror / "toy" / "toy.t").unlink()
    with pytest.raises(DataError, match="checksum mismatch.*moved to"):
        toy.load()
    assert not (raw / "toy.t").exists()
    quarantined = list((toy.cache / "quarantine" / toy.name).iterdir())
    assert len(quarantined) == 1 and quarantined[0].name.startswith("toy.t.")


def test_truncated_compressed_file_with_matching_checksum(toy: Toy, tmp_path: Path) -> None:
    # A publisher's file that is itself truncated passes the checksum but not the parser.
    cut = toy.train[: len(toy.train) // 2]
    (toy.mirror / "toy" / "toy.bz2").write_bytes(cut)
    spec = toy.spec
    files = (RemoteFile("toy.bz2", ("http://127.0.0.1:9/x",), _sha256(cut), ("toy/toy.bz2",)),
             spec.sources[0].files[1])
    unregister(toy.name)
    register(DatasetSpec(**{**spec.__dict__, "sources": (
        Source("gen", files, spec.sources[0].reader, "generated"),)}))
    with pytest.raises(DataError, match=r"cannot parse .*toy\.bz2"):
        toy.load()


def test_nan_row_is_rejected(toy: Toy) -> None:
    bad = _libsvm_text(N_TEST, 2, nan_row=4)
    (toy.mirror / "toy" / "toy.t").write_bytes(bad)
    spec = toy.spec
    files = (spec.sources[0].files[0],
             RemoteFile("toy.t", ("http://127.0.0.1:9/x",), _sha256(bad), ("toy/toy.t",)))
    unregister(toy.name)
    register(DatasetSpec(**{**spec.__dict__, "sources": (
        Source("gen", files, spec.sources[0].reader, "generated"),)}))
    with pytest.raises(DataError, match=r"1 row\(s\) with NaN or Inf values \(first at row 5 "
                                        r"of part 2\)"):
        toy.load()


def test_missing_file_offline_names_file_and_place(toy: Toy) -> None:
    (toy.mirror / "toy" / "toy.t").unlink()
    with pytest.raises(DataError) as err:
        toy.load()
    text = str(err.value)
    assert "offline mode" in text
    assert "toy.t [sha256:" in text
    assert str(toy.mirror / "toy" / "toy.t") in text
    assert str(toy.cache / "raw" / toy.name / "toy.t") in text
    assert "toy.bz2 [" not in text  # only the missing file is listed


def test_missing_file_without_network_reports_download_failure(toy: Toy) -> None:
    (toy.mirror / "toy" / "toy.t").unlink()
    # Port 9 on loopback refuses connections: the same outcome as a machine with no network.
    with pytest.raises(DataError) as err:
        toy.load(offline=False)
    text = str(err.value)
    assert "download failed" in text and "http://127.0.0.1:9/toy.t" in text
    assert "toy.t [sha256:" in text


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_root(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A loopback HTTP server serving a temporary folder."""
    root = tmp_path / "www"
    root.mkdir()

    def handler(*args: object, **kwargs: object) -> _Quiet:
        return _Quiet(*args, directory=str(root), **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_download_verifies_and_caches(tmp_path: Path, http_root: tuple[Path, str]) -> None:
    root, url = http_root
    toy = Toy(tmp_path / "d", "toy_download", urls=(f"{url}/broken", url))
    for fname, data in toy.files.items():
        (root / fname).write_bytes(data)
        (toy.mirror / "toy" / fname).unlink()
    register(toy.spec)
    try:
        ds = toy.load(offline=False)
        assert ds.X_train.shape == (N_TRAIN, D)
        for fname, data in toy.files.items():
            assert (toy.cache / "raw" / toy.name / fname).read_bytes() == data
    finally:
        unregister(toy.name)


def test_download_with_wrong_checksum_is_not_kept(tmp_path: Path,
                                                  http_root: tuple[Path, str]) -> None:
    root, url = http_root
    toy = Toy(tmp_path / "d", "toy_badsum", urls=(url,))
    (root / "toy.t").write_bytes(toy.test + b"1 1:0.5\n")
    (toy.mirror / "toy" / "toy.t").unlink()
    register(toy.spec)
    try:
        with pytest.raises(DataError, match="download of .*toy.t failed"):
            toy.load(offline=False)
        assert not (toy.cache / "raw" / toy.name / "toy.t").exists()
    finally:
        unregister(toy.name)


def test_a_failed_download_is_tried_once_per_run(tmp_path: Path, http_root: tuple[Path, str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A table of runs on one missing dataset asks its sources once: the second load in the
    same process names the earlier failure instead of downloading again."""
    from kernreg.datasets import fetch

    _, url = http_root
    toy = Toy(tmp_path / "d", "toy_missing", urls=(f"{url}/nowhere",))
    (toy.mirror / "toy" / "toy.t").unlink()
    calls = []
    real_create = fetch.pooch.create
    monkeypatch.setattr(fetch.pooch, "create",
                        lambda **kw: calls.append(kw["urls"]) or real_create(**kw))
    register(toy.spec)
    try:
        with pytest.raises(DataError, match=r"download of .*nowhere/toy.t failed: 404"):
            toy.load(offline=False)
        with pytest.raises(DataError, match=r"nowhere/toy.t failed \(earlier in this run: 404"):
            toy.load(offline=False)
        assert len(calls) == 1
    finally:
        unregister(toy.name)


@pytest.mark.parametrize("toy", [{"pin": True}], indirect=True)
def test_file_without_published_checksum_is_pinned(toy: Toy, caplog: pytest.LogCaptureFixture
                                                   ) -> None:
    toy.load(use_cache=False)
    assert "no published checksum" in caplog.text
    pin = toy.cache / "raw" / toy.name / "toy.t.sha256"
    assert pin.read_text().strip() == hashlib.sha256(toy.test).hexdigest()
    (toy.mirror / "toy" / "toy.t").write_bytes(toy.test.replace(b"1:", b"3:", 1))
    with pytest.raises(DataError, match="checksum mismatch.*toy.t"):
        toy.load(use_cache=False)


def test_second_source_used_when_first_is_missing(toy: Toy) -> None:
    spec = toy.spec
    absent = RemoteFile("absent.bz2", ("http://127.0.0.1:9/absent.bz2",), _sha256(b"x"))
    first = Source("preferred", (absent, spec.sources[0].files[1]), spec.sources[0].reader,
                   "not available")
    unregister(toy.name)
    register(DatasetSpec(**{**spec.__dict__, "sources": (first, spec.sources[0])}))
    assert toy.load().source == "gen"


def test_label_set_and_counts_are_checked(toy: Toy) -> None:
    spec = toy.spec
    unregister(toy.name)
    register(DatasetSpec(**{**spec.__dict__, "raw_labels": (0.0, 1.0)}))
    with pytest.raises(DataError, match=r"label set \[-1.0, 1.0\] differs"):
        toy.load()
    unregister(toy.name)
    register(DatasetSpec(**{**spec.__dict__, "n_test": N_TEST + 1}))
    with pytest.raises(DataError, match=f"expected train/test/d = {N_TRAIN}/{N_TEST + 1}/{D}"):
        toy.load()
    unregister(toy.name)
    register(DatasetSpec(**{**spec.__dict__, "split": RowSplit(N_TRAIN, N_TEST + 5)}))
    with pytest.raises(DataError, match="expected 45 rows in file order, found 40"):
        toy.load()


def test_unreadable_cache_file_is_rebuilt(toy: Toy) -> None:
    toy.load()
    (entry,) = (toy.cache / "processed").glob("*.h5")
    entry.write_bytes(b"not hdf5")
    ds = toy.load()
    assert not ds.from_cache and ds.X_train.shape == (N_TRAIN, D)


def test_unknown_dataset_lists_registered_names() -> None:
    with pytest.raises(DataError, match="unknown dataset 'nosuch'.*adult"):
        get_spec("nosuch")


def test_missing_mirror_folder(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="mirror folder .*nowhere does not exist"):
        load_dataset("adult", mirror=tmp_path / "nowhere")


@pytest.mark.parametrize("error, tries", [("NameResolutionError: no such host", 1),
                                          ("502 Bad Gateway", 3)])
def test_an_unreachable_host_is_not_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            error: str, tries: int) -> None:
    """No network (the host's name does not resolve): one try, no back-off sleeps; any other
    failure is retried as KERNREG_DOWNLOAD_RETRIES says."""
    from kernreg.datasets import fetch

    monkeypatch.setenv("KERNREG_DOWNLOAD_RETRIES", "2")
    attempts = []

    class Failing:
        def __init__(self, retry_if_failed: int) -> None:
            self.retries = retry_if_failed

        def fetch(self, name: str, progressbar: bool) -> str:
            attempts.extend([name] * (1 + self.retries))  # pooch's own tries
            raise RuntimeError(error)

    monkeypatch.setattr(fetch.pooch, "create", lambda **kw: Failing(kw["retry_if_failed"]))
    toy = Toy(tmp_path / "d", "toy_unreachable", urls=("https://nowhere.invalid/toy.t",))
    (toy.mirror / "toy" / "toy.t").unlink()
    register(toy.spec)
    try:
        with pytest.raises(DataError, match=error.split(":")[0]):
            toy.load(offline=False)
        assert len(attempts) == tries
    finally:
        unregister(toy.name)
        fetch._FAILED_DOWNLOADS.clear()
