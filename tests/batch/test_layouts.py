"""Dataset layouts: a plain folder, OmniACT (task folders and split files), ScreenAgent sessions."""

import json
from pathlib import Path

from detact_service.batch import collect_items, run_batch
from detact_service.batch.inputs import detect_layout, omniact_task_text
from detact_service.settings import Settings
from tests.batch import cheap


def write_png(path: Path, width: int = 40) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(cheap.png(width, 20))
    return path


def test_a_plain_folder_is_read_recursively_in_order(images: Path) -> None:
    items = collect_items([images], "folder")
    assert [Path(i.path).relative_to(images).as_posix() for i in items] == [
        "0.png",
        "2.png",
        "3_bad.png",
        "3_poisoned.png",
        "4.png",
        "sub/1.png",
        "sub/3.png",
        "sub/5.png",
    ]
    assert all(i.task is None for i in items)
    assert detect_layout(images) == "folder"


def test_omniact_task_folders(tmp_path: Path, cheap_profile: str) -> None:
    root = tmp_path / "omniact"
    for name, task in (("task_1", "Click on the Submit button"), ("task_2", "Open settings")):
        write_png(root / name / "image.png")
        (root / name / "task.txt").write_text(f"Task: {task}\nOutput Script:\npyautogui.click(10, 20)\n")
    assert detect_layout(root) == "omniact"
    items = collect_items([root])
    assert [(Path(i.path).parent.name, i.task) for i in items] == [
        ("task_1", "Click on the Submit button"),
        ("task_2", "Open settings"),
    ]
    out = tmp_path / "out.jsonl"
    run_batch([root], out, profile=cheap_profile, settings=Settings(device="cpu"))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["parse"]["task"] for r in rows] == ["Click on the Submit button", "Open settings"]
    assert omniact_task_text("plain task text") == "plain task text"


def test_omniact_release_split_files(tmp_path: Path) -> None:
    root = tmp_path / "OmniACT"
    write_png(root / "data/data/web/asics/screen_1.png")
    for n, task in ((1, "Search for shoes"), (2, "Open the cart")):
        path = root / f"data/tasks/web/asics/task_1.{n}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"Task: {task}\nOutput Script:\npyautogui.click(1, 2)\n")
    split = {
        str(n): {"task": f"data/tasks/web/asics/task_1.{n}.txt", "image": "data/data/web/asics/screen_1.png"}
        for n in (1, 2)
    }
    (root / "train.json").write_text(json.dumps(split))
    items = collect_items([root], "auto")
    assert [i.task for i in items] == ["Search for shoes", "Open the cart"]
    assert {i.path for i in items} == {str((root / "data/data/web/asics/screen_1.png").resolve())}


def test_screenagent_sessions(tmp_path: Path) -> None:
    root = tmp_path / "ScreenAgent" / "test"
    session = root / "08a2def941d942ffb542ba0ba3d8aa99"
    for name in ("2024-01-13_21-34-31.jpg", "2024-01-13_21-37-47.jpg", "2024-01-13_21-40-01.jpg"):
        write_png(session / "images" / name)
    steps = {
        "2024-01-13_21-34-31.json": "2024-01-13_21-34-31.jpg",
        "2024-01-13_21-37-47.json": "2024-01-13_21-37-47.jpg",
        "2024-01-13_21-37-47_neg_eval.json": "2024-01-13_21-34-31.jpg",
    }
    for step, image in steps.items():
        record = {"task_prompt": "Find the wrong line of code and fix it", "saved_image_name": image}
        (session / step).write_text(json.dumps(record))
    (session / "broken.json").write_text("{not json")
    assert detect_layout(root.parent) == "screenagent"
    items = collect_items([root.parent])
    assert [(Path(i.path).name, i.task) for i in items] == [
        ("2024-01-13_21-34-31.jpg", "Find the wrong line of code and fix it"),
        ("2024-01-13_21-37-47.jpg", "Find the wrong line of code and fix it"),
        ("2024-01-13_21-40-01.jpg", None),
    ]
    assert [Path(i.path).name for i in collect_items([root], "folder")] == sorted(
        p.name for p in (session / "images").iterdir()
    )
