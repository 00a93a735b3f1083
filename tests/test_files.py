"""The one output policy (browser_ctx.files): where files are saved, downloaded and uploaded from."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser_ctx import files
from browser_ctx._errors import InvalidArgument
from browser_ctx.cli import build_parser, settings_from_args
from browser_ctx.settings import Settings


def test_output_path_stays_in_the_output_dir(tmp_path: Path):
    settings = Settings(output_dir=str(tmp_path / "out"), allowed_roots=(str(tmp_path / "up"),))
    assert files.output_path(settings, "a/shot.png") == (tmp_path / "out" / "a" / "shot.png").resolve()
    assert files.output_path(settings, str(tmp_path / "up" / "x.txt")) == (tmp_path / "up" / "x.txt").resolve()
    with pytest.raises(InvalidArgument, match="outside the output folder"):
        files.output_path(settings, "../escape.png")


def test_downloads_go_under_the_output_dir_else_a_temp_folder(tmp_path: Path):
    assert files.download_dir(Settings(output_dir=str(tmp_path))) == tmp_path / "downloads"
    assert (tmp_path / "downloads").is_dir()
    default = files.download_dir(Settings())
    assert default.name == "downloads" and Path.cwd() not in default.parents


def test_upload_paths_only_from_the_roots(tmp_path: Path):
    (tmp_path / "ok.txt").write_text("x")
    settings = Settings(allowed_roots=(str(tmp_path),))
    assert files.upload_roots(settings) == [tmp_path.resolve()]
    assert files.upload_path(settings, str(tmp_path / "ok.txt")) == (tmp_path / "ok.txt").resolve()
    with pytest.raises(InvalidArgument, match="outside the allowed roots"):
        files.upload_path(settings, "/etc/hostname")
    with pytest.raises(InvalidArgument, match="is not a file"):
        files.upload_path(settings, str(tmp_path / "missing.txt"))


def test_save_names_what_went_wrong(tmp_path: Path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidArgument, match="Could not save"):
        files.save(tmp_path / "file" / "under-a-file.png", b"data")


def test_output_dir_env_var_is_read_by_the_cli_only(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("BROWSER_CTX_OUTPUT_DIR", str(tmp_path))
    settings = settings_from_args(build_parser().parse_args(["serve"]))
    assert settings.output_dir == str(tmp_path)
    assert files.output_dir(Settings()) == Path.cwd().resolve()  # the policy itself never reads the environment
