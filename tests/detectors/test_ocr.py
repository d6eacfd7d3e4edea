from pathlib import Path

import numpy as np
import pytest

from detact_service.core import ElementType, ScreenParse
from detact_service.detectors.ocr_base import OcrStage
from detact_service.detectors.ocr_rapid import OcrProfile
from detact_service.settings import Settings
from detact_service.stages import create_stage
from tests.render import ScreenPainter, render_form


@pytest.fixture(scope="module")
def form() -> np.ndarray:
    return np.asarray(render_form(1280, 800).image)


def words(parse: ScreenParse) -> set[str]:
    return {w.lower().strip(".,?") for e in parse.elements for w in (e.text or "").split()}


@pytest.mark.parametrize("backend", ["rapidocr", pytest.param("easyocr", marks=pytest.mark.slow)])
def test_ocr_reads_the_form_words_with_boxes_on_them(backend: str, form: np.ndarray) -> None:
    stage = create_stage("text", backend, Settings(device="cpu"))
    parse = stage.run([form], [ScreenParse(form.shape[1], form.shape[0])])[0]
    assert {"create", "account", "email", "password", "remember", "submit", "cancel"} <= words(parse)
    assert all(e.type is ElementType.TEXT and e.source == "ocr" for e in parse.elements)
    submit = next(e for e in parse.elements if e.text and "Submit" in e.text)
    # The Submit label is drawn centred in the button at (620..860, 660..716).
    cx, cy = submit.center
    assert 620 < cx < 860 and 660 < cy < 716
    assert stage.model_version()


@pytest.mark.parametrize("backend", ["rapidocr", pytest.param("easyocr", marks=pytest.mark.slow)])
def test_each_backend_reads_a_box_of_the_screen_as_one_line(backend: str, form: np.ndarray) -> None:
    stage = create_stage("text", backend, Settings(device="cpu"))
    assert isinstance(stage, OcrStage)
    (submit, score), (blank, _) = stage.read_boxes(form, np.array([[620, 660, 860, 716], [0, 0, 40, 30]]))
    assert submit == "Submit" and score > 0.8
    assert not any(c.isalnum() for c in blank)  # the form's blank top-left corner


@pytest.mark.parametrize("size", [12, 16, 22, 34])
def test_prose_stays_one_line_but_a_menu_bar_splits_into_items(size: int) -> None:
    painter = ScreenPainter(1400, 200)
    painter.text((10, 20), "Create your account and remember me", size=size)
    x = 10
    menu = []
    for word in ["File", "Edit", "View", "Help"]:
        menu.append(painter.text((x, 120), word, size=size))
        x = menu[-1].bbox[2] + int(size * 1.2)
    image = np.asarray(painter.done().image)
    stage = create_stage("text", "rapidocr", Settings(device="cpu"))
    parse = stage.run([image], [ScreenParse(1400, 200)])[0]
    # What matters here is the boxes (the spaces are checked below).
    texts = sorted((e.bbox[1] > 100, e.bbox[0], (e.text or "").replace(" ", "")) for e in parse.elements)
    assert [t for below, _, t in texts if not below] == ["Createyouraccountandrememberme"]
    assert [t for below, _, t in texts if below] == ["File", "Edit", "View", "Help"]


@pytest.mark.parametrize("size", [14, 18])
def test_monospace_prose_stays_one_line_while_its_spaces_are_as_wide_as_a_menus_gaps(size: int) -> None:
    """A terminal's line: a monospace font's spaces are wide enough to split a line into items; the items'
    own text shows a space of one character advance, so they are joined again."""
    from PIL import ImageDraw, ImageFont

    from detact_service.detectors.ocr_base import ink_spans

    mono = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
    if not mono.is_file():
        pytest.skip("DejaVu Sans Mono is not installed")
    painter = ScreenPainter(1400, 200, background=(30, 30, 30))
    line = "After this operation, 9011 kB of additional disk space will be used."
    ImageDraw.Draw(painter.image).text(
        (10, 20), line, font=ImageFont.truetype(str(mono), size), fill=(220, 220, 220)
    )
    x = 10
    for word in ["File", "Edit", "View", "Help"]:
        x = painter.text((x, 120), word, size=size, fill=(220, 220, 220)).bbox[2] + int(size * 1.2)
    image = np.asarray(painter.done().image)
    stage = create_stage("text", "rapidocr", Settings(device="cpu"))
    parse = stage.run([image], [ScreenParse(1400, 200)])[0]
    engine = stage._engine()  # type: ignore[attr-defined]
    (quad, *_) = engine.detect(np.ascontiguousarray(image[:100, :, ::-1]), 1280, OcrProfile())
    assert len(ink_spans(image, quad)) > 3  # the line is cut at its spaces before it is read
    top = [e.text for e in parse.elements if e.bbox[1] < 100]
    assert top == [line]
    assert sorted(e.text or "" for e in parse.elements if e.bbox[1] > 100) == ["Edit", "File", "Help", "View"]


def test_a_blue_link_inside_black_prose_becomes_its_own_element() -> None:
    painter = ScreenPainter(1200, 120)
    before = painter.text((10, 40), "Lorem ipsum dolor sit", size=22)
    link = painter.text((before.bbox[2] + 7, 40), "consectetur", size=22, fill=(20, 60, 230))
    painter.text((link.bbox[2] + 7, 40), "amet elit sed", size=22)
    image = np.asarray(painter.done().image)
    stage = create_stage("text", "rapidocr", Settings(device="cpu"))
    parse = stage.run([image], [ScreenParse(1200, 120)])[0]
    found = [e for e in parse.elements if (e.text or "").strip() == "consectetur"]
    assert len(found) == 1
    x1, _, x2, _ = found[0].bbox
    assert abs(x1 - link.bbox[0]) <= 6 and abs(x2 - link.bbox[2]) <= 6


def read(image: np.ndarray, **settings: object) -> tuple[ScreenParse, object]:
    stage = create_stage("text", "rapidocr", Settings(device="cpu", **settings))  # type: ignore[arg-type]
    parse = stage.run([image], [ScreenParse(image.shape[1], image.shape[0])])[0]
    return parse, stage


def test_the_default_models_keep_the_spaces_between_english_words() -> None:
    painter = ScreenPainter(1000, 260)
    phrases = ["Create your account and remember me", "Forgot your password?", "Sign in with email"]
    for i, phrase in enumerate(phrases):
        painter.text((20, 20 + i * 80), phrase, size=(16, 22, 28)[i])
    parse, stage = read(np.asarray(painter.done().image))
    assert sorted(e.text for e in parse.elements) == sorted(phrases)
    assert stage.model_version().startswith("rapidocr:ppocrv6-small")  # type: ignore[attr-defined]


@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_both_runtimes_read_the_form_alike(runtime: str) -> None:
    """OpenVINO's recogniser (bfloat16 where the CPU has it) reads what ONNX Runtime's reads on a rendered
    form, one crop a call, and the parse says which runtime read it."""
    from detact_service.models import OpenVinoSession, openvino_bf16_native

    image = np.asarray(render_form(1400, 1000).image)
    reference, _ = read(image, ocr={"runtime": "onnxruntime"})
    parse, stage = read(image, ocr={"runtime": runtime})
    engine = stage._engine()  # type: ignore[attr-defined]
    assert isinstance(engine.recs[0], OpenVinoSession) is (runtime == "openvino")
    assert engine.rec_batch == (1 if runtime == "openvino" else 16)
    assert [e.text for e in parse.elements] == [e.text for e in reference.elements]
    assert len(parse.elements) >= 10
    assert [e.bbox for e in parse.elements] == [e.bbox for e in reference.elements]
    bf16 = runtime == "openvino" and openvino_bf16_native()
    version = stage.model_version()  # type: ignore[attr-defined]
    assert version.endswith("+openvino-bf16" if bf16 else "+openvino" if runtime == "openvino" else "small")


def test_the_text_detector_is_the_shipped_copy_without_subnormal_weights() -> None:
    """``models/ppocrv6-det-small.onnx`` is the wheel's detector with its subnormal weights at zero (3.4x
    faster on an Intel CPU): the stage loads it, and on a rendered form its probability map is the wheel's."""
    import onnx
    import onnxruntime as ort

    from detact_service.detectors.ocr_rapid import MODEL_SETS
    from training.quantize import subnormal_weights

    stage = create_stage("text", "rapidocr", Settings(device="cpu"))
    spec = stage.det_flushed()  # type: ignore[attr-defined]
    assert spec is not None and spec.path.name == "ppocrv6-det-small.onnx"
    spec.verify()
    models = MODEL_SETS["ppocrv6-small"]
    wheel = models.path(models.det)
    assert subnormal_weights(onnx.load(str(wheel))) > 100_000
    assert subnormal_weights(onnx.load(str(spec.path))) == 0
    blob = np.asarray(render_form(1280, 704).image, dtype=np.float32).transpose(2, 0, 1)[None] / 127.5 - 1
    shipped = ort.InferenceSession(str(spec.path), providers=["CPUExecutionProvider"])
    reference = ort.InferenceSession(str(wheel), providers=["CPUExecutionProvider"])
    (mine,) = shipped.run(None, {"x": blob})
    (theirs,) = reference.run(None, {"x": blob})
    assert mine.shape == (1, 1, 704, 1280) and float(mine.max()) > 0.9  # the form's words are found
    assert np.abs(mine - theirs).max() < 1e-6
    assert stage._engine().det._model_path == str(spec.path)  # type: ignore[attr-defined]


def test_auto_runtime_is_openvino_only_where_bfloat16_pays() -> None:
    from detact_service.models import openvino_bf16_pays

    assert create_stage("text", "rapidocr", Settings(device="cpu")).openvino() is openvino_bf16_pays()  # type: ignore[attr-defined]
    int8 = create_stage("text", "rapidocr", Settings(device="cpu", ocr={"int8": True, "runtime": "openvino"}))
    assert int8.openvino() is False  # type: ignore[attr-defined]  # the int8 recogniser was measured on ORT


def test_each_crop_is_read_once_in_one_detection_and_few_recognition_calls() -> None:
    from bench.profile import count_model_calls

    painter = ScreenPainter(1400, 200)
    painter.text((10, 20), "Create your account and remember me", size=22)
    x = 10
    for word in ["File", "Edit", "View", "Help"]:
        x = painter.text((x, 120), word, size=22).bbox[2] + 30
    image = np.asarray(painter.done().image)
    read(image)  # loads the models
    with count_model_calls() as calls:
        parse, stage = read(image)
    profile = stage.last_profile  # type: ignore[attr-defined]
    # two lines detected, the menu bar split into its four items before recognition: five crops read once
    assert (profile.lines, profile.crops, profile.reread_crops) == (2, 5, 0)
    assert len(parse.elements) == 5
    assert calls.calls == {"ppocrv6-det-small.onnx": 1, "PP-OCRv6_rec_small.onnx": profile.rec_calls}
    # batched by width rung (a crop's reading must not depend on its batch): one call per rung here; one
    # call per crop on OpenVINO, which keeps a plan per input shape
    if stage._engine().rec_batch == 1:  # type: ignore[attr-defined]
        assert profile.rec_calls == 5
    else:
        assert profile.rec_calls == len(set(profile.rec_widths)) <= 5


def test_a_repeated_word_is_read_once_and_every_copy_gets_its_text() -> None:
    painter = ScreenPainter(900, 400)
    for row in range(4):  # a table column of one status, drawn at the same sub-pixel offset
        painter.text((40, 30 + 80 * row), "Pending", size=22)
        painter.text((300, 30 + 80 * row), f"Invoice {row + 17}", size=22)
    image = np.asarray(painter.done().image)
    parse, stage = read(image)
    profile = stage.last_profile  # type: ignore[attr-defined]
    assert (profile.crops, profile.copied_crops) == (8, 3)
    texts = sorted(e.text or "" for e in parse.elements)
    assert texts == ["Invoice 17", "Invoice 18", "Invoice 19", "Invoice 20", *["Pending"] * 4]


def test_distinct_crops_keeps_the_first_of_each_copy_in_screen_order() -> None:
    from detact_service.detectors.ocr_rapid import distinct_crops

    boxes = np.asarray([[0, 0, 10, 5], [20, 0, 30, 5], [0, 9, 10, 14], [40, 0, 44, 12]], dtype=np.int64)
    prints = np.asarray([7, 3, 7, 7], dtype=np.uint64)  # the last repeats the pixels' digest, not the shape
    kept, copy_of = distinct_crops(boxes, prints)
    assert kept.tolist() == [0, 1, 3]
    assert copy_of.tolist() == [0, 1, 0, 2]
    empty_kept, empty_copy = distinct_crops(boxes[:0], prints[:0])
    assert len(empty_kept) == len(empty_copy) == 0


def test_a_crop_reads_the_same_alone_or_with_the_whole_screen() -> None:
    """Recognition pads each crop to its width rung and batches only crops of one rung, so reading a few
    crops again (a re-parse) gives exactly what reading them among all the others gave."""
    image = np.asarray(render_form(1400, 1000).image)
    read(image)
    stage = create_stage("text", "rapidocr", Settings(device="cpu"))
    engine = stage._engine()  # type: ignore[attr-defined]
    bgr = np.ascontiguousarray(image[..., ::-1])
    quads = engine.detect(bgr, 1280, OcrProfile())
    boxes, _, _ = stage._crops(image, quads)  # type: ignore[attr-defined]
    crops = [bgr[y1:y2, x1:x2] for x1, y1, x2, y2 in boxes]
    together = engine.recognise(crops, OcrProfile())
    alone = [engine.recognise([crop], OcrProfile())[0] for crop in crops[::3]]
    assert [text for text, _ in alone] == [text for text, _ in together[::3]]
    assert np.allclose([s for _, s in alone], [s for _, s in together[::3]], atol=1e-5)


def test_long_lines_are_read_in_calls_of_bounded_width() -> None:
    """ONNX Runtime's arena keeps the memory of the widest call for the life of the process: a call holds
    at most REC_BATCH_WIDTH padded pixels of width, so a page of long lines does not grow the service."""
    from detact_service.detectors.ocr_rapid import REC_BATCH_WIDTH

    painter = ScreenPainter(1900, 420)
    sentence = "Read the terms of service before you continue to the next page of the form"
    for row in range(6):
        painter.text((10, 10 + 68 * row), sentence, size=24)
    image = np.asarray(painter.done().image)
    stage = create_stage("text", "rapidocr", Settings(device="cpu"))
    engine = stage._engine()  # type: ignore[attr-defined]
    bgr = np.ascontiguousarray(image[..., ::-1])
    crops = [bgr[10 + 68 * row : 50 + 68 * row, 5:1890] for row in range(6)]
    profile = OcrProfile()
    texts = engine.recognise(crops, profile)
    assert all("terms of service" in text for text, _ in texts)
    widest = max(profile.rec_widths)
    assert len(set(profile.rec_widths)) == 1  # one rung
    assert widest > REC_BATCH_WIDTH // 6  # too wide for six crops in one call
    per_call = REC_BATCH_WIDTH // widest
    assert profile.rec_calls == -(-6 // per_call) > 1


def test_detection_runs_at_the_capped_long_side_and_small_screens_are_enlarged() -> None:
    big = np.asarray(render_form(2560, 1440).image)
    parse, stage = read(big, ocr={"det_max_side": 1280, "det_max_shrink": 0})
    assert stage.last_profile.det_size == (1280, 704)  # type: ignore[attr-defined]
    assert {"create", "account", "submit", "cancel"} <= words(parse)
    painter = ScreenPainter(160, 210)
    painter.text((10, 10), "Submit", size=12)
    _, stage = read(np.asarray(painter.done().image))
    assert min(stage.last_profile.det_size) == 480  # type: ignore[attr-defined]


def test_a_screen_wider_than_1920_is_shrunk_at_most_1_5x_for_detection() -> None:
    """Small text on a 2560x1440 or 4K screen survives detection: such a screen is read at its width over
    1.5 (up to 1920 px), not at 1280; phones and screens up to 1920 px wide are read as before."""
    from detact_service.detectors.ocr_rapid import detection_side

    assert detection_side(1080, 1920, 1280, 1.5) == 1280
    assert detection_side(1440, 2560, 1280, 1.5) == 1707
    assert detection_side(2160, 3840, 1280, 1.5) == 1920
    assert detection_side(3200, 1440, 1280, 1.5) == 1280  # a high-density phone: large text
    assert detection_side(2160, 3840, 1280, 0) == 1280
    from detact_service.detectors.ocr_rapid import OcrProfile
    from tests.render import render_dense_dashboard

    dashboard = np.asarray(render_dense_dashboard().image)  # 1920x1080, 306 lines of 13-22 px text
    screen = np.full((2160, 3840, 3), dashboard[0, 0], dtype=np.uint8)  # on a 4K screen at 100 %
    screen[:1080, :1920] = dashboard
    engine = create_stage("text", "rapidocr", Settings(device="cpu"))._engine()  # type: ignore[attr-defined]
    bgr = np.ascontiguousarray(screen[..., ::-1])
    at_1280 = engine.detect(bgr, 1280, OcrProfile())
    at_1920 = engine.detect(bgr, detection_side(2160, 3840, 1280, 1.5), OcrProfile())
    assert len(at_1920) >= 300 and len(at_1280) <= len(at_1920) - 30


def test_a_phone_screen_is_detected_at_960_px_and_reads_every_word_1280_reads() -> None:
    """Phone text is drawn at 2-3.5 device pixels a point, so a phone-shaped screenshot's text is detected
    at a long side of 960 px; a portrait desktop page and a landscape screen keep 1280."""
    from PIL import Image

    from detact_service.detectors.ocr_rapid import detection_side

    assert detection_side(2340, 1080, 1280, 1.5, 960) == 960
    assert detection_side(2340, 1080, 1280, 1.5, 0) == 1280
    assert detection_side(2340, 1080, 800, 1.5, 960) == 800
    assert detection_side(2400, 1440, 1280, 1.5, 960) == 1280  # wider than a phone: a desktop page
    assert detection_side(1080, 1920, 1280, 1.5, 960) == 1280
    assert detection_side(900, 800, 1280, 1.5, 960) == 1280  # a MiniWoB++-like page is not a phone
    card = render_form(1920, 1080).image.crop((540, 100, 1380, 980))  # the form's card, 840x880
    page = Image.new("RGB", (840, 1820), card.getpixel((5, 5)))
    page.paste(card, (0, 0))
    phone = np.asarray(page.resize((1080, 2340), Image.Resampling.BICUBIC))  # its text 26-44 px high
    at_phone, stage = read(phone)
    assert stage.last_profile.det_size[1] == 960  # type: ignore[attr-defined]
    at_1280, stage = read(phone, ocr={"det_max_side_phone": 0})
    assert stage.last_profile.det_size[1] == 1280  # type: ignore[attr-defined]
    assert words(at_1280) <= words(at_phone)
    assert all(len(w) == 1 for w in words(at_phone) - words(at_1280))  # 960 reads a radio's circle as 'O'
    assert {"create", "email", "password", "remember", "newsletter", "submit", "cancel"} <= words(at_phone)


def test_the_old_ppocrv4_models_stay_selectable(form: np.ndarray) -> None:
    parse, stage = read(form, ocr_models="ppocrv4")
    assert {"create", "email", "password", "submit", "cancel"} <= {w.replace(" ", "") for w in words(parse)}
    assert stage.model_version() == "rapidocr:ppocrv4"  # type: ignore[attr-defined]


@pytest.mark.slow
def test_the_dense_dashboard_is_read_nearly_exactly() -> None:
    from bench.ocr import dashboard_screen, score

    _, image, truth = dashboard_screen()
    assert len(truth) >= 250
    parse, _ = read(image)
    counts = score(parse.elements, truth)
    assert counts.exact_match >= 0.9
    assert counts.word_recall >= 0.95
    assert counts.cer <= 0.05


def test_a_screen_without_text_reads_no_lines() -> None:
    stage = create_stage("text", "rapidocr", Settings(device="cpu"))
    assert stage.run([np.full((64, 96, 3), 255, np.uint8)], [ScreenParse(96, 64)])[0].elements == []


@pytest.mark.parametrize(
    ("read", "text"),
    [
        ("[Section #2", "Section #2"),
        ("user$]", "user$"),
        ("| Home |", "Home"),
        ("[x]", "[x]"),
        ("Tags [3]", "Tags [3]"),
        ("a | b", "a | b"),
        ("|", "|"),
    ],
)
def test_a_box_border_read_as_an_unpaired_bracket_is_dropped(read: str, text: str) -> None:
    from detact_service.detectors.ocr_base import strip_border_marks

    assert strip_border_marks(read) == text


def _items(line_height: int, gaps_in_heights: list[float], texts: list[str]) -> list:
    """A detected line's items as :func:`ink_spans` cuts them: padded boxes, gaps apart in line heights."""
    pad, x, out = line_height // 8, 0.0, []
    for i, text in enumerate(texts):
        width = line_height * len(text)  # a CJK glyph is about a line height wide
        quad = np.asarray(
            [[x, 0], [x + width, 0], [x + width, line_height], [x, line_height]], dtype=np.float64
        )
        out.append((quad, text, 0.9))
        if i < len(gaps_in_heights):
            x += width + gaps_in_heights[i] * line_height - 2 * pad
    return out


@pytest.mark.parametrize(
    ("texts", "gaps", "joined"),
    [
        (
            ["憑藉著言語，", "加上智慧，", "人們獲得了所有"],
            [0.53, 0.53],
            ["憑藉著言語，加上智慧，人們獲得了所有"],
        ),
        (["药品医疗器械网络信息服务备案", "(京)"], [0.47], ["药品医疗器械网络信息服务备案(京)"]),
        (["第1页，", "共1页"], [0.47], ["第1页，共1页"]),
        (["文件", "编辑", "查看"], [0.8, 0.8], ["文件", "编辑", "查看"]),  # a menu bar: no punctuation
        (["用户名：", "张三"], [1.5], ["用户名：", "张三"]),  # too far apart to be one sentence
        (["视频选集(1/2)", "三"], [0.52], ["视频选集(1/2)", "三"]),  # a title and an icon after its count
    ],
)
def test_cjk_prose_cut_at_its_full_width_punctuation_is_joined_again(
    texts: list[str], gaps: list[float], joined: list[str]
) -> None:
    """Measured on the ScreenAgent desktops: a full-width comma leaves 0.4-0.8 line heights blank, past the
    0.5 at which a line splits into items, and each clause of a Chinese paragraph became an element."""
    from detact_service.detectors.ocr_base import rejoin_items

    lines = rejoin_items(_items(20, gaps, texts), np.zeros(len(texts), dtype=np.int64))
    assert [text for _, text, _ in lines] == joined
    if len(joined) == 1:
        assert lines[0][0][:, 0].min() == 0 and lines[0][0][:, 0].max() == pytest.approx(
            _items(20, gaps, texts)[-1][0][:, 0].max()
        )


def test_two_recognition_workers_read_what_one_reads_and_share_the_batches() -> None:
    from detact_service.detectors.ocr_rapid import split_work

    assert split_work([10, 1, 1, 8], 2) == [[0], [1, 2, 3]]
    image = np.asarray(render_form(1400, 1000).image)
    one, _ = read(image, ocr={"rec_workers": 1})
    stage = create_stage("text", "rapidocr", Settings(device="cpu", ocr={"rec_workers": 2}))
    engine = stage._engine()  # type: ignore[attr-defined]
    assert len(engine.recs) == 2

    class Counted:
        def __init__(self, session: object) -> None:
            self.session, self.calls = session, 0

        def get_inputs(self) -> object:
            return self.session.get_inputs()  # type: ignore[attr-defined]

        def run(self, *args: object) -> object:
            self.calls += 1
            return self.session.run(*args)  # type: ignore[attr-defined]

    sessions, engine.recs = engine.recs, [Counted(s) for s in engine.recs]
    try:
        two = stage.run([image], [ScreenParse(image.shape[1], image.shape[0])])[0]
        calls = [s.calls for s in engine.recs]
    finally:
        engine.recs = sessions
    assert min(calls) >= 1 and sum(calls) == stage.last_profile.rec_calls  # type: ignore[attr-defined]
    assert [(e.bbox, e.text) for e in two.elements] == [(e.bbox, e.text) for e in one.elements]
    assert np.allclose([e.score for e in two.elements], [e.score for e in one.elements], atol=1e-5)


SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "desktop-screenagent"


def test_a_chinese_nav_bar_comes_out_item_by_item() -> None:
    """bilibili's nav bar on a real desktop (the team's ScreenAgent samples beside the checkout): its items
    stand 0.38-0.42 line heights apart, under the 0.5 that cuts a menu bar, and are read one by one."""
    from PIL import Image

    found = sorted(SAMPLES.glob("343e7861*.jpg"))
    if not found:
        pytest.skip(f"{SAMPLES} is not beside the checkout")
    with Image.open(found[0]) as opened:
        image = np.asarray(opened.convert("RGB"))
    parse, _ = read(image)
    bar = [e for e in parse.elements if 100 <= (e.bbox[1] + e.bbox[3]) / 2 <= 135 and e.bbox[2] <= 450]
    texts = [e.text for e in sorted(bar, key=lambda e: e.bbox[0])]
    assert texts[-6:] == ["番剧", "直播", "游戏中心", "会员购", "漫画", "赛事"]


def test_only_cjk_words_without_prose_punctuation_are_a_bar() -> None:
    from detact_service.detectors.ocr_base import is_cjk_bar, is_cjk_text

    assert is_cjk_bar("首页 番剧直播游戏中心") and is_cjk_bar("会员购")
    assert not is_cjk_bar("找租房，找二手房")  # a sentence: its gaps are the comma's blank
    assert not is_cjk_bar("File Edit View") and not is_cjk_bar("页")
    assert is_cjk_text("- 东方") and not is_cjk_text("- 东") and not is_cjk_text("")
    assert is_cjk_text("ログイン") and is_cjk_text("로그인")  # kana and Hangul are CJK too
    assert not is_cjk_text("历史 today", least=3)


@pytest.mark.parametrize(
    ("native", "vendor", "flags", "pays"),
    [
        (True, "AuthenticAMD", {"avx512_bf16"}, True),  # measured faster
        (True, "GenuineIntel", {"avx512_bf16"}, False),  # measured slower: no AMX
        (True, "GenuineIntel", {"avx512_bf16", "amx_bf16"}, True),
        (False, "AuthenticAMD", set(), False),  # bfloat16 emulated: never
        (False, "GenuineIntel", {"amx_bf16"}, False),
    ],
)
def test_bfloat16_recogniser_pays_where_it_was_measured_to(
    native: bool, vendor: str, flags: set[str], pays: bool
) -> None:
    from detact_service.models import bf16_recogniser_pays

    assert bf16_recogniser_pays(native, vendor, frozenset(flags)) is pays
