"""Export a trained icon classifier to ``models/<name>.onnx`` with its manifest entry.

python -m training.icons export runs/icons/r2/last.pt --metrics runs/icons/r2/eval.json
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from detact_service.models import file_sha256, write_manifest_entry
from detact_service.understanding.icon_classifier import MODEL_KIND
from detact_service.understanding.icons import FRAME
from training.icons.data import merged_meanings
from training.icons.model import build
from training.icons.sources import ICON_SETS
from training.reader.model import imagenet_base


class Ensemble(nn.Module):
    """Several runs as one model: the log of their mean softmax (a softmax of it is that mean)."""

    def __init__(self, nets: list[nn.Module]) -> None:
        super().__init__()
        self.nets = nn.ModuleList(nets)

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        probs = torch.stack([net(frames).softmax(dim=1) for net in self.nets]).mean(dim=0)
        return torch.log(probs.clamp_min(1e-9))


class Merged(nn.Module):
    """A model whose classes ``column`` folds into fewer meanings: the log of each meaning's summed
    probability (a softmax of it is that sum)."""

    def __init__(self, model: nn.Module, column: list[int]) -> None:
        super().__init__()
        self.model = model
        fold = torch.zeros((len(column), max(column) + 1))
        fold[torch.arange(len(column)), torch.tensor(column)] = 1.0
        self.register_buffer("fold", fold)

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        probs = self.model(frames).softmax(dim=1) @ self.fold
        return torch.log(probs.clamp_min(1e-9))


def export(
    checkpoint: Path | list[Path],
    models_dir: Path,
    name: str = "ui-icons",
    metrics: dict[str, Any] | None = None,
    threshold: float | None = None,
    command: str | None = None,
    aliases: dict[str, str] | None = None,
    join: list[Path] | None = None,
    join_weight: float = 0.5,
) -> Path:
    """Write ``models_dir/<name>.onnx`` (input ``frames`` ``(n, 1, 32, 32)``, output ``logits``).

    Several checkpoints (runs over one vocabulary) make one ensemble model. ``threshold`` is written as
    the entry's ``conf``: the probability the runtime needs to name an icon, unless a setting says otherwise.
    ``aliases`` (a vocabulary's, ``{"printer": "print"}``) fold classes into the meaning they name: the
    model answers the meanings, each with its names' summed probability (:func:`merged_meanings`).
    ``join``: exported classifiers over the same classes (an earlier version's file) that answer with the
    checkpoints as one mean softmax: together they weigh ``join_weight``, the checkpoints the rest
    (:func:`combine_onnx`).
    """
    checkpoints = checkpoint if isinstance(checkpoint, list) else [checkpoint]
    nets: list[nn.Module] = []
    classes: list[str] = []
    pretrained = False
    for path in checkpoints:
        state = torch.load(path, map_location="cpu", weights_only=False)
        if classes and list(state["classes"]) != classes:
            raise SystemExit(f"{path}: another vocabulary than {checkpoints[0]}")
        classes = list(state["classes"])
        net = build(len(classes), str(state.get("arch", "small")), int(state.get("width", 32)))
        pretrained = pretrained or state.get("arch") == "mobilenet"
        net.load_state_dict(state["model"])
        nets.append(net)
    model: nn.Module = nets[0] if len(nets) == 1 else Ensemble(nets)
    if aliases:
        classes, column = merged_meanings(classes, aliases)
        model = Merged(model, column.tolist())
    model.eval()
    models_dir.mkdir(parents=True, exist_ok=True)
    path = models_dir / f"{name}.onnx"
    exported = path.with_suffix(".checkpoints.onnx") if join else path
    torch.onnx.export(
        model,
        (torch.zeros((2, 1, FRAME, FRAME)),),
        str(exported),
        input_names=["frames"],
        output_names=["logits"],
        dynamic_axes={"frames": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    if join:
        shares = [join_weight / len(join)] * len(join) + [1.0 - join_weight]
        combine_onnx([*join, exported], path, shares)
        exported.unlink()
    sets = {s.set_id: {"split": s.split, "package": s.package, "licence": s.licence} for s in ICON_SETS}
    write_manifest_entry(
        models_dir,
        {
            "name": name,
            "kind": MODEL_KIND,
            "backend": "classifier",
            "file": path.name,
            "sha256": file_sha256(path),
            "classes": classes,
            **({"aliases": dict(sorted(aliases.items()))} if aliases else {}),
            "input_size": FRAME,
            **(
                {"base": imagenet_base("MobileNetV2 features[:14] (torchvision, ImageNet)")}
                if pretrained
                else {}
            ),
            "licence": "AGPL-3.0 (this project); trained on MIT, Apache-2.0, CC BY 4.0 and Unlicense glyphs "
            "(sets)",
            "data_version": "glyphs of the train sets, rendered by python -m training.icons render",
            "sets": sets,
            "metrics": metrics or {},
            **({"conf": threshold} if threshold is not None else {}),
            "command": command
            or (
                "python -m training.icons render; "
                "python -m training.icons train --out runs/icons/r2; "
                "python -m training.icons eval /tmp/m/ui-icons.onnx --vocab runs/icons/r2/vocab.json "
                "--out runs/icons/r2/eval.json; "
                "python -m training.icons export runs/icons/r2/last.pt --metrics runs/icons/r2/eval.json"
            ),
        },
    )
    return path


def combine_onnx(models: list[Path], out: Path, weights: list[float] | None = None) -> Path:
    """One ONNX model whose output is the log of the mean of ``models``' softmaxes (``weights``: a
    weighted mean, normalised to sum to one).

    Each model answers ``logits`` over the same classes for the same ``frames``; this lets a new network
    join an exported ensemble whose checkpoints are gone (only its ONNX file is kept).
    """
    import onnx
    from onnx import compose, helper, numpy_helper

    loaded = [onnx.load(str(path)) for path in models]
    graphs: list[onnx.GraphProto] = []
    for index, (path, model) in enumerate(zip(models, loaded, strict=True)):
        if [i.name for i in model.graph.input] != ["frames"] or [o.name for o in model.graph.output] != [
            "logits"
        ]:
            raise SystemExit(f"{path}: not an icon classifier (frames -> logits)")
        classes = model.graph.output[0].type.tensor_type.shape.dim[1].dim_value
        if graphs and classes != graphs[0].output[0].type.tensor_type.shape.dim[1].dim_value:
            raise SystemExit(f"{path}: {classes} classes, unlike {models[0]}")
        graphs.append(compose.add_prefix(model, prefix=f"m{index}_").graph)
    nodes, initializers, probabilities = [], [], []
    for index, graph in enumerate(graphs):
        for node in graph.node:
            node.input[:] = ["frames" if name == f"m{index}_frames" else name for name in node.input]
        nodes += list(graph.node)
        initializers += list(graph.initializer)
        probabilities.append(f"m{index}_probabilities")
        nodes.append(helper.make_node("Softmax", [f"m{index}_logits"], [probabilities[-1]], axis=1))
    shares = np.asarray(weights if weights is not None else [1.0] * len(models), dtype=np.float32)
    if len(shares) != len(models) or (shares <= 0).any():
        raise SystemExit(f"{len(models)} models need as many positive weights, not {weights}")
    shares /= shares.sum()
    for index, share in enumerate(shares):
        initializers.append(numpy_helper.from_array(np.asarray(share, dtype=np.float32), f"m{index}_share"))
        nodes.append(
            helper.make_node("Mul", [probabilities[index], f"m{index}_share"], [f"m{index}_weighted"])
        )
    nodes += [
        helper.make_node("Sum", [f"m{i}_weighted" for i in range(len(models))], ["mean_probabilities"]),
        helper.make_node("Log", ["mean_probabilities"], ["logits"]),
    ]
    first = graphs[0]
    frames = helper.make_tensor_value_info("frames", onnx.TensorProto.FLOAT, ["n", 1, FRAME, FRAME])
    logits = helper.make_tensor_value_info(
        "logits", onnx.TensorProto.FLOAT, ["n", first.output[0].type.tensor_type.shape.dim[1].dim_value]
    )
    graph = helper.make_graph(nodes, "icon_ensemble", [frames], [logits], initializers)
    opset = max(o.version for o in loaded[0].opset_import if o.domain in ("", "ai.onnx"))
    combined = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    combined.ir_version = loaded[0].ir_version
    onnx.checker.check_model(combined)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(combined, str(out))
    return out
