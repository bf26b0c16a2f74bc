"""pyhalide/ir/cache_trust.py: which directories may hold code we load. Tests
run as root, so "another user" is simulated with os.chown to another uid."""
import os

import pytest

from pyhalide.ir import cache_trust

OTHER_UID = 54321


@pytest.fixture
def root(tmp_path):
    d = tmp_path / "cache"
    d.mkdir(mode=0o755)
    return d


def test_a_private_directory_is_trusted(root):
    assert cache_trust.untrusted_reason(str(root)) is None
    assert cache_trust.untrusted_reason(str(root / "not" / "made" / "yet")) is None


@pytest.mark.parametrize("mode, who", [(0o775, "its group"), (0o757, "others"),
                                       (0o1777, "others")])
def test_a_cache_directory_others_can_write_is_refused(root, mode, who):
    root.chmod(mode)                     # sticky does not help: others could plant an entry
    assert f"writable by {who}" in cache_trust.untrusted_reason(str(root))


def test_a_parent_others_can_write_is_refused_unless_sticky(tmp_path):
    parent = tmp_path / "shared"
    parent.mkdir()
    (parent / "cache").mkdir(mode=0o755)
    parent.chmod(0o777)
    assert "shared is writable by others" in cache_trust.untrusted_reason(
        str(parent / "cache"))
    parent.chmod(0o1777)                 # like /tmp: others cannot replace our folder
    assert cache_trust.untrusted_reason(str(parent / "cache")) is None
    # a cache folder not created yet is judged by its parent: not sticky-exempt then
    parent.chmod(0o770)
    assert "writable by its group" in cache_trust.untrusted_reason(str(parent / "new"))


def test_a_directory_or_parent_of_another_user_is_refused(tmp_path, root):
    os.chown(root, OTHER_UID, -1)
    assert f"owned by another user (uid {OTHER_UID})" in cache_trust.untrusted_reason(
        str(root))
    os.chown(root, 0, -1)
    os.chown(tmp_path, OTHER_UID, -1)
    try:
        assert "owned by another user" in cache_trust.untrusted_reason(str(root))
    finally:
        os.chown(tmp_path, 0, -1)


def test_symbolic_links_are_followed_and_their_owner_checked(tmp_path, root):
    link = tmp_path / "link"
    link.symlink_to(root)
    assert cache_trust.untrusted_reason(str(link)) is None
    os.lchown(link, OTHER_UID, -1)
    assert "link is owned by another user" in cache_trust.untrusted_reason(str(link))
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    other = tmp_path / "other"
    other.symlink_to(open_dir)
    assert "open is writable by others" in cache_trust.untrusted_reason(str(other))


def test_refusal_is_said_once_and_holds(root, capsys):
    cache_trust.write_file(str(root), "ab/x.o", b"one", "HINT")
    assert cache_trust.read_file(str(root), "ab/x.o", "HINT") == b"one"
    (root / "ab").chmod(0o775)           # a subdirectory the group can write
    assert cache_trust.read_file(str(root), "ab/x.o", "HINT") is None
    (root / "ab").chmod(0o755)
    assert cache_trust.read_file(str(root), "ab/x.o", "HINT") is None
    cache_trust.write_file(str(root), "cd/y.o", b"two", "HINT")
    assert not (root / "cd").exists()
    err = capsys.readouterr().err
    assert err.count("not using the cache directory") == 1
    assert "ab is writable by its group" in err and "HINT" in err


@pytest.mark.parametrize("attack", ["group-writable", "other owner", "symlink"])
def test_an_entry_file_others_control_is_not_read(root, attack, capsys):
    cache_trust.write_file(str(root), "ab/x.o", b"mine", "HINT")
    path = root / "ab" / "x.o"
    if attack == "group-writable":
        path.chmod(0o664)
    elif attack == "other owner":
        os.chown(path, OTHER_UID, -1)
    else:
        (root / "elsewhere").write_bytes(b"planted")
        path.unlink()
        path.symlink_to(root / "elsewhere")
    assert cache_trust.read_file(str(root), "ab/x.o", "HINT") is None
    assert "not using the cache directory" in capsys.readouterr().err


def test_new_directories_are_made_private_whatever_the_umask(tmp_path):
    old = os.umask(0o002)
    try:
        root = tmp_path / "a" / "b" / "cache"
        cache_trust.write_file(str(root), "ab/x.o", b"data", "HINT")
    finally:
        os.umask(old)
    for d in (tmp_path / "a", tmp_path / "a" / "b", root, root / "ab"):
        assert d.stat().st_mode & 0o777 == 0o755, d
    assert (root / "ab" / "x.o").stat().st_mode & 0o777 == 0o600
    assert cache_trust.read_file(str(root), "ab/x.o", "HINT") == b"data"
