"""Training: data loading (DeepLTL two-line files to device tensors) and the training loop."""
