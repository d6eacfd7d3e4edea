"""The attribute model (semi-masked Pix2Struct): tokenizer, configuration, data, training and export."""
