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
    assert files.output_path(settings, str(tmp_path / "out" / "b.png")) == (tmp_path / "out" / "b.png").resolve()
    with pytest.raises(InvalidArgument, match="outside the output folder"):
        files.output_path(settings, "../escape.png")
    # Write roots are only the output folder: an upload root or the working directory is not one (issue 16).
    with pytest.raises(InvalidArgument, match="outside the output folder"):
        files.output_path(settings, str(tmp_path / "up" / "x.txt"))
    with pytest.raises(InvalidArgument, match="outside the output folder"):
        files.output_path(settings, str(Path.cwd() / ".bashrc"))


@pytest.mark.parametrize(("filename", "message"), [
    ("a\x00b.png", "contains a NUL character"),
    ("x" * 300 + ".png", "path component of 304 bytes"),
    ("y/" * 600 + "z.png", "characters long"),
    ("sub/", "names a folder"),
    (".", "names a folder|is a folder|outside the output folder"),
    ("", "names a folder"),
    ("existing", "is a folder"),
])
def test_bad_filenames_are_one_line_errors(tmp_path: Path, filename: str, message: str):
    (tmp_path / "existing").mkdir()
    with pytest.raises(InvalidArgument, match=message) as caught:
        files.output_path(Settings(output_dir=str(tmp_path)), filename)
    assert "\n" not in str(caught.value)


def test_each_http_session_gets_its_own_output_folder_out_of_the_others_reach(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    server = Settings(output_dir=str(tmp_path / "out"))  # inside the working directory, the default upload root
    a, b = files.session_settings(server), files.session_settings(server)
    assert files.output_dir(a) != files.output_dir(b)
    assert files.output_dir(a).parent == (tmp_path / "out" / files.SESSIONS).resolve()
    assert files.download_dir(a) == files.output_dir(a) / files.DOWNLOADS
    saved = files.output_path(a, "cookies.json")
    files.save(saved, b"{}")
    assert files.upload_path(a, str(saved)) == saved  # a session may upload its own file
    with pytest.raises(InvalidArgument, match="another client session's output folder"):
        files.upload_path(b, str(saved))
    with pytest.raises(InvalidArgument, match="outside the output folder"):
        files.output_path(b, str(saved))  # nor overwrite it
    (tmp_path / "mine.txt").write_text("x")
    assert files.upload_path(b, "mine.txt") == (tmp_path / "mine.txt").resolve()  # the rest of the cwd still uploads
    default = files.session_settings(Settings())  # no --output-dir: the process's temporary folder
    assert Path.cwd() not in files.output_dir(default).parents


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
