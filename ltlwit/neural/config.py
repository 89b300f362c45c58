"""One dataclass config per model family, with the papers' presets and smaller ones.

`n_layers` is the depth of the encoder *and* of the decoder (8 + 8 for LTL): the papers take
their "Layers" column from DeepLTL, whose Transformer uses one `num_layers` for both stacks.

Presets (`preset(arch, task, name)`):
- `paper`: the papers' Table 3/4 values. Dual-part LTL: d=128, 8 layers, 8 heads, FF 1024,
  hypercube β with d_β=5 (the ITE paper's LTL model). Dual-part prop: d=132, 6 layers, 6 heads,
  FF 512; the paper does not state its β, we use hypercube d_β=6 (64 APs at most).
  Symbol-invariant LTL: d=64, 8 layers, 4 heads, FF 1024, EP-DP-EA-CP; prop: d=96, 6 layers,
  6 heads, FF 768, EP-DP-EA-DA-CP.
- `small`: CPU-sized (d=64, 3 layers, 4 heads, FF 256), same attention/β choices.
- `tiny`: for tests, no dropout. Symbol-invariant: d=32, 2 layers, 2 heads, FF 64 (it runs one
  stream per AP, so it costs k times more per sample). Dual-part: d=32, 3 layers, 4 heads,
  FF 128: smaller ones take far longer to learn to copy an AP's random β to the output.

The baselines (`full`, `renaming`, `lexinv`: `ltlwit.neural.baselines`) take the dual-part
model's sizes in every preset, as in the ITE paper, whose baselines are DeepLTL's model.

Every preset builds models with embedding dropout 0.1 (tiny: 0) and RoPE in cross-attention
(`_FRESH`); a config read from a manifest keeps what it says, and a key it lacks takes the
dataclass default, which is the behaviour of the weights written before the key existed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from ltlwit.neural.backbone import WitnessModel

TASKS = ("ltl", "prop")
ATTENTION_PARTS = ("EP", "DP", "EA", "DA", "CP", "CA")


@dataclass
class ModelConfig:
    task: str = "ltl"
    d_model: int = 128
    n_layers: int = 8  # encoder layers = decoder layers
    n_heads: int = 8
    d_ff: int = 1024
    dropout: float = 0.1
    #: Dropout on the input embeddings (+ positions) of encoder and decoder, as in the original
    #: Transformer. Training only; 0 in configs written before it existed.
    emb_dropout: float = 0.0
    #: RoPE in cross-attention too (the ITE reference code): decoder positions on the queries,
    #: source token indices on the keys. Changes what a model computes, so configs written
    #: before it existed (the bundled weights) leave it off.
    cross_rope: bool = False
    arch: ClassVar[str] = ""

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r} (expected ltl or prop)")
        if self.d_model % self.n_heads or (self.d_model // self.n_heads) % 2:
            raise ValueError(f"d_model {self.d_model} must split into {self.n_heads} heads of even size")
        if not (0 <= self.dropout < 1 and 0 <= self.emb_dropout < 1):
            raise ValueError("dropout rates must be in [0, 1)")

    def to_dict(self) -> dict[str, Any]:
        return {"arch": self.arch, **asdict(self)}

    @property
    def rename_pool(self) -> int:
        """AP slots training renames every sample into (a random bijection per sample): 0, none,
        unless the architecture is defined by that augmentation."""
        return 0

    def build(self) -> WitnessModel:
        raise NotImplementedError


@dataclass
class DualConfig(ModelConfig):
    """Dual-part embeddings (ITE paper): AP row = f_fn([f_bn(α), f_bn(β_i)])."""

    beta_method: str = "hypercube"  # hypercube | neighbours | normal
    d_beta: int = 5
    beta_seed: int = 0  # the fixed draw used at inference (chosen by calibration)
    arch: ClassVar[str] = "dual"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.beta_method not in ("hypercube", "neighbours", "normal"):
            raise ValueError(f"unknown beta_method {self.beta_method!r}")
        if not 0 < self.d_beta < self.d_model:
            raise ValueError(f"d_beta must be in 1..{self.d_model - 1}, got {self.d_beta}")

    def build(self) -> WitnessModel:
        from ltlwit.neural.dual import DualTransformer

        return DualTransformer(self)


@dataclass
class SIConfig(ModelConfig):
    """Symbol-invariant transformer; `attention` names the enabled parts, e.g. EP-DP-EA-CP."""

    attention: str = "EP-DP-EA-CP"
    arch: ClassVar[str] = "si"

    def __post_init__(self) -> None:
        super().__post_init__()
        parts = self.parts
        unknown = parts - set(ATTENTION_PARTS)
        if unknown:
            raise ValueError(f"unknown attention parts {sorted(unknown)} (known: {', '.join(ATTENTION_PARTS)})")
        if not parts & {"CP", "CA"}:
            raise ValueError("the decoder needs cross-attention: CP and/or CA")

    @property
    def parts(self) -> set[str]:
        return set(filter(None, self.attention.upper().split("-")))

    def build(self) -> WitnessModel:
        from ltlwit.neural.symbol_invariant import SymbolInvariantTransformer

        return SymbolInvariantTransformer(self)


@dataclass
class FullConfig(ModelConfig):
    """Baseline: a standard transformer with a learned embedding row per AP slot (DeepLTL's, the
    ITE paper's "full vocabulary" baseline); `vocab_aps` rows, so at most that many APs."""

    vocab_aps: int = 10
    arch: ClassVar[str] = "full"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.vocab_aps < 1:
            raise ValueError(f"vocab_aps must be positive, got {self.vocab_aps}")

    def build(self) -> WitnessModel:
        from ltlwit.neural.baselines import FullVocabTransformer

        return FullVocabTransformer(self)


@dataclass
class RenamingConfig(FullConfig):
    """Baseline: the full-vocabulary model trained with alpha-renaming (the ITE paper's
    augmentation baseline): every training sample's APs renamed by a random bijection into all
    `vocab_aps` slots, so every row is trained though no sample has more APs than the data."""

    arch: ClassVar[str] = "renaming"

    @property
    def rename_pool(self) -> int:
        return self.vocab_aps


@dataclass
class LexConfig(ModelConfig):
    """Baseline: the lexinvariant model (Huang et al. 2023): each AP's embedding a fresh
    standard Gaussian vector per sequence while training; `beta_seed` fixes the draw at
    inference (chosen as the dual-part model's is)."""

    beta_seed: int = 0
    arch: ClassVar[str] = "lexinv"

    def build(self) -> WitnessModel:
        from ltlwit.neural.baselines import LexinvariantTransformer

        return LexinvariantTransformer(self)


@dataclass
class ExpEmbConfig(ModelConfig):
    """ExpEmb-E (the fifth paper): a GRU encoder-decoder trained to write a formula equivalent
    to its input, its encoder's last state the input's embedding. `d_model` is the paper's H;
    one GRU layer a side and no attention heads (the transformer fields keep the values that
    say so: 1 layer, 1 head, no feed-forward); `max_slots` AP slots, each its own token."""

    n_layers: int = 1
    n_heads: int = 1
    d_ff: int = 0
    dropout: float = 0.0
    max_slots: int = 26
    #: Weight of a contrastive term (none of the papers has it; 0: the paper's loss alone): the
    #: embeddings of a pair's input and output pulled together and apart from the batch's other
    #: outputs (InfoNCE over cosines / `temperature`). The paper's decoder learns what a class's
    #: members have in common only as far as writing one needs it; score_k asks it directly.
    contrastive: float = 0.0
    temperature: float = 0.05
    arch: ClassVar[str] = "expemb-e"
    #: What its training pairs are: "equivalent" (two members of a class), "same" (a member and
    #: itself: ExpEmb-A).
    pairs: ClassVar[str] = "equivalent"

    def build(self) -> WitnessModel:
        from ltlwit.neural.expemb import ExpEmb

        return ExpEmb(self)


@dataclass
class AutoencoderConfig(ExpEmbConfig):
    """ExpEmb-A, the paper's autoencoder baseline: the same network, trained to write its input."""

    arch: ClassVar[str] = "expemb-a"
    pairs: ClassVar[str] = "same"


@dataclass
class InterchangeableConfig(ExpEmbConfig):
    """ExpEmb-E with interchangeable AP tokens (none of the papers has it): an AP's embedding is
    the dual-part model's, a learned part saying "an AP" and `d_beta` dimensions drawn at
    random per formula pair while training (the same draw in the input and the output), one
    seeded draw (`beta_seed`) at inference; the decoder names an AP by its drawn part. Nothing
    about one slot can be learned, so what it learns of `G(a -> F b)` holds of `G(x -> F y)`."""

    d_beta: int = 32
    beta_seed: int = 0
    arch: ClassVar[str] = "expemb-i"


#: Every architecture by the name `train --arch` and the manifests give it.
ARCHS: dict[str, type[ModelConfig]] = {
    "si": SIConfig,
    "dual": DualConfig,
    "full": FullConfig,
    "renaming": RenamingConfig,
    "lexinv": LexConfig,
    "expemb-e": ExpEmbConfig,
    "expemb-a": AutoencoderConfig,
    "expemb-i": InterchangeableConfig,
}
#: The baselines are built at the dual-part model's sizes (the ITE paper's, which are DeepLTL's).
_SAME_AS = {"full": "dual", "renaming": "dual", "lexinv": "dual"}
_DUAL_ONLY = ("d_beta",)

_PRESETS: dict[tuple[str, str, str], dict[str, Any]] = {
    ("dual", "ltl", "paper"): dict(d_model=128, n_layers=8, n_heads=8, d_ff=1024, d_beta=5),
    ("dual", "prop", "paper"): dict(d_model=132, n_layers=6, n_heads=6, d_ff=512, d_beta=6),
    ("si", "ltl", "paper"): dict(d_model=64, n_layers=8, n_heads=4, d_ff=1024, attention="EP-DP-EA-CP"),
    ("si", "prop", "paper"): dict(d_model=96, n_layers=6, n_heads=6, d_ff=768, attention="EP-DP-EA-DA-CP"),
}
#: What a freshly built model of every preset gets beyond its sizes: the papers' details that
#: the first bundled models lacked. Tiny models (tests) keep dropout off.
_FRESH = dict(emb_dropout=0.1, cross_rope=True)
_SIZES: dict[tuple[str, str], dict[str, float]] = {
    ("small", "dual"): dict(d_model=64, n_layers=3, n_heads=4, d_ff=256),
    ("small", "si"): dict(d_model=64, n_layers=3, n_heads=4, d_ff=256),
    ("tiny", "dual"): dict(d_model=32, n_layers=3, n_heads=4, d_ff=128, dropout=0.0, emb_dropout=0.0),
    ("tiny", "si"): dict(d_model=32, n_layers=2, n_heads=2, d_ff=64, dropout=0.0, emb_dropout=0.0),
}
PRESETS = ("paper", "small", "tiny")


#: ExpEmb's H per preset and architecture: the paper's (1024 for ExpEmb-E, 128 for ExpEmb-A),
#: and CPU-sized ones.
_EXPEMB_H = {
    "paper": {"expemb-e": 1024, "expemb-a": 128, "expemb-i": 1024},
    "small": {"expemb-e": 256, "expemb-a": 128, "expemb-i": 256},
    "tiny": {},
}


def preset(arch: str, task: str, name: str) -> ModelConfig:
    """The `paper`, `small` or `tiny` config of an architecture (`ARCHS`) for `ltl` or `prop`."""
    cls = ARCHS.get(arch)
    if cls is None:
        raise ValueError(f"unknown architecture {arch!r} (expected {', '.join(ARCHS)})")
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r} (expected {', '.join(PRESETS)})")
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r} (expected ltl or prop)")
    if issubclass(cls, ExpEmbConfig):
        return cls(task=task, d_model=_EXPEMB_H[name].get(arch, 32))
    sizes = _SAME_AS.get(arch, arch)
    values = dict(_PRESETS[sizes, task, "paper"], **_FRESH)
    values.update(_SIZES.get((name, sizes), {}))
    if sizes != arch:
        values = {k: v for k, v in values.items() if k not in _DUAL_ONLY}
    return cls(task=task, **values)


def config_from_dict(data: dict[str, Any]) -> ModelConfig:
    """Inverse of `ModelConfig.to_dict` (manifests, checkpoints); unknown keys are an error."""
    data = dict(data)
    arch = data.pop("arch", None)
    cls = ARCHS.get(arch)
    if cls is None:
        raise ValueError(f"unknown architecture {arch!r} in config")
    names = {f.name for f in fields(cls)}
    extra = set(data) - names
    if extra:
        raise ValueError(f"unknown config keys {sorted(extra)} for {arch}")
    return cls(**data)
