"""A small Pix2Struct configuration and its tokenizer, trained from scratch (no weights can be downloaded).

The tokenizer is a byte-level BPE trained on the target strings (``tokenizers``), wrapped as a
transformers fast tokenizer so ``save_pretrained``/``from_pretrained`` keep model and tokenizer together.
Ids 0 and 1 are ``<pad>`` (also the decoder start) and ``</s>``, as Pix2Struct expects.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

SPECIAL_TOKENS = ("<pad>", "</s>", "<unk>")
# name -> (hidden size, encoder layers, decoder layers, heads, feed-forward size)
SIZES: dict[str, tuple[int, int, int, int, int]] = {
    "xs": (128, 2, 1, 2, 384),
    "s": (192, 3, 2, 3, 576),
    "m": (256, 4, 2, 4, 768),
}
PATCH = 16


def train_tokenizer(targets: Iterable[str], vocab_size: int = 1024) -> Any:
    """A byte-level BPE tokenizer for ``targets`` as a ``PreTrainedTokenizerFast``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    # '|' separates fields: split there (kept as its own token) and byte-level inside fields.
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Split("|", behavior="isolated"), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(targets, trainer=trainer)
    tokenizer.post_processor = processors.TemplateProcessing(
        single="$A </s>", special_tokens=[("</s>", tokenizer.token_to_id("</s>"))]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token="<pad>", eos_token="</s>", unk_token="<unk>"
    )


def small_config(vocab_size: int, size: str = "s", max_patches: int = 64) -> Any:
    """A Pix2Struct configuration of one of :data:`SIZES`."""
    from transformers import Pix2StructConfig
    from transformers.models.pix2struct.configuration_pix2struct import (
        Pix2StructTextConfig,
        Pix2StructVisionConfig,
    )

    hidden, enc_layers, dec_layers, heads, ff = SIZES[size]
    vision = Pix2StructVisionConfig(
        hidden_size=hidden,
        patch_embed_hidden_size=PATCH * PATCH * 3,
        d_ff=ff,
        d_kv=hidden // heads,
        num_hidden_layers=enc_layers,
        num_attention_heads=heads,
        seq_len=max(4096, max_patches),
    )
    text = Pix2StructTextConfig(
        vocab_size=vocab_size,
        hidden_size=hidden,
        d_ff=ff,
        d_kv=hidden // heads,
        num_layers=dec_layers,
        num_heads=heads,
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
    )
    return Pix2StructConfig(
        text_config=text.to_dict(),
        vision_config=vision.to_dict(),
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
    )


def image_processor(max_patches: int) -> Any:
    """The Pix2Struct image processor with this model's patch budget."""
    from transformers import Pix2StructImageProcessor

    return Pix2StructImageProcessor(
        is_vqa=False, max_patches=max_patches, patch_size={"height": PATCH, "width": PATCH}
    )
