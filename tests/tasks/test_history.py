import subprocess

import git

from tasks.history import walk


def _commit(repo, name: str, message: str) -> None:
    (repo / name).write_text(name)
    subprocess.run(["git", "-C", str(repo), "add", name], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-F", "-"],
        input=message.encode(),
        check=True,
    )


def test_walk_reads_messages_holding_control_characters(tmp_path):
    # real histories carry \x01-\x03 in commit messages; they must not split a record
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _commit(tmp_path, "a.py", "first\n\nbody with \x01 and \x02 and \x03 inside\n")
    _commit(tmp_path, "b.py", "second \x01\x02\x03 subject\n")
    records = walk(git.Repo(tmp_path))
    assert [r.subject for r in records] == ["first", "second \x01\x02\x03 subject"]
    assert "\x01 and \x02 and \x03" in records[0].body
    assert [r.files for r in records] == [["a.py"], ["b.py"]]
    assert records[1].parents == [records[0].sha]
