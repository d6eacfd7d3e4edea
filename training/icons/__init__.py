"""The icon classifier's recipe: icon sets, rendering, augmentation, training, export and evaluation."""
