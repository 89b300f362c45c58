"""Evaluation: accuracy (correct, exact, top-N, invalid), an accuracy grid by AP count and
formula size, and alpha-covariance, for any predictor (a model's beam search or a test double).

    samples = load_samples("test.txt.gz", "ltl")
    acc = evaluate(samples, predictor, "ltl", top=3)
    cov = alpha_covariance([s.formula for s in samples[:1000]], predictor)
"""

from __future__ import annotations

from ltlwit.eval.alpha import AlphaCovariance, alpha_covariance, alpha_of, variant_maps
from ltlwit.eval.metrics import Accuracy, Judgement, Sample, evaluate, is_witness, load_samples
from ltlwit.eval.predictor import Invalid, NeuralPredictor, Prediction, Predictor, invert

__all__ = [
    "Accuracy",
    "AlphaCovariance",
    "Invalid",
    "Judgement",
    "NeuralPredictor",
    "Prediction",
    "Predictor",
    "Sample",
    "alpha_covariance",
    "alpha_of",
    "evaluate",
    "invert",
    "is_witness",
    "load_samples",
    "variant_maps",
]
