"""The CPU type and state reader: data, training, export."""
