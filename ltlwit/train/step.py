"""One optimiser step (forward, AdaCos, backward, clipping, AdamW), run eagerly or replayed from a
CUDA graph per batch shape.

The bundled models are small (d 64-132) and deep (12-16 layers): on an H100 a step is hundreds
of small kernels and the GPU waits on Python launching them. `GraphedStep` captures the whole
step once per batch shape (the training data's static shapes keep those few: `DeviceSplit(...,
static=16)`) and replays it, one launch a step. What that needs, and what the rest of the code
provides:
- no host synchronisation and no host-to-device copy inside the step: the loss and the AdaCos
  scale stay tensors, the dual-part model draws its training β on the device;
- the optimiser built `capturable` with a tensor learning rate (`make_optimizer`), whose value
  `set_lr` updates in place before each replay, and its state created before the first capture
  (the first step of a run is eager);
- inputs copied into the graph's static buffers, the loss read from its static output;
- autocast without its weight-cast cache (the cache would hold tensors of the capture).
Every shape's graph is warmed up (forward and backward, no update) on a side stream before its
capture; the warm-up runs leave the AdaCos scale and the random generators as they found them,
and the blocks they cached in the ordinary allocator are handed back before the capture: the
capture's activations live in the graphs' shared pool, and the warm-up's copy kept beside them
doubled the memory (si-ltl at batch 768: 35 GiB each; beside another training process on an
H100, the capture ran out of memory).
A graph replays the same kernels, so results match the eager step up to the nondeterminism of
GPU reductions; dropout and β draws come from the CUDA generator, which graphs advance as eager
code does (`bench/train_throughput.py --check` compares the two on a GPU).

`EagerStep` is the same step without capture (CPU, or CUDA without graphs).
"""

from __future__ import annotations

import contextlib
from typing import Callable

import torch
from torch import Tensor, nn

from ltlwit.neural.backbone import WitnessModel
from ltlwit.train.data import Batch

Autocast = Callable[[], contextlib.AbstractContextManager]


def make_optimizer(
    model: WitnessModel, lr: float, weight_decay: float, device: torch.device, graphs: bool = False
) -> torch.optim.Optimizer:
    """AdamW, betas (0.9, 0.95), no decay on vectors; fused on CUDA; capturable with a tensor
    learning rate for CUDA graphs."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]
    cuda = device.type == "cuda"
    if graphs:
        if not cuda:
            raise ValueError("CUDA graphs need a CUDA device")
        return torch.optim.AdamW(
            groups, lr=torch.tensor(lr, device=device), betas=(0.9, 0.95), fused=True, capturable=True
        )
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95), fused=cuda)


def set_lr(optimizer: torch.optim.Optimizer, lr: float) -> None:
    """The learning rate of every group: in place for a tensor rate (captured graphs read it)."""
    for group in optimizer.param_groups:
        if isinstance(group["lr"], Tensor):
            group["lr"].fill_(lr)
        else:
            group["lr"] = lr


def portable_state(optimizer: torch.optim.Optimizer) -> dict:
    """The optimiser's state dict with plain float learning rates, so a checkpoint written with
    graphs resumes without them and the other way round (`restore_lr` undoes it)."""
    state = optimizer.state_dict()
    for group in state["param_groups"]:
        if isinstance(group.get("lr"), Tensor):
            group["lr"] = float(group["lr"])
    return state


def restore_lr(optimizer: torch.optim.Optimizer, device: torch.device, graphs: bool) -> None:
    """After `load_state_dict` (which takes the saved groups' flags): the flags this optimiser
    was built with (`make_optimizer`), and tensor learning rates where it captures."""
    for group in optimizer.param_groups:
        group["fused"], group["capturable"] = device.type == "cuda", graphs
        if graphs and not isinstance(group["lr"], Tensor):
            group["lr"] = torch.tensor(float(group["lr"]), device=device)


class EagerStep:
    """forward -> AdaCos (scale update) -> backward -> clip -> AdamW, as Python runs it."""

    def __init__(
        self,
        model: WitnessModel,
        net: nn.Module,
        optimizer: torch.optim.Optimizer,
        grad_clip: float,
        autocast: Autocast,
    ) -> None:
        self.model, self.net, self.opt, self.grad_clip, self.autocast = model, net, optimizer, grad_clip, autocast

    def loss(self, src: Tensor, tgt_in: Tensor, tgt_out: Tensor, n_slots: int, n_aps: int) -> Tensor:
        with self.autocast():
            cos = self.net(src, tgt_in, n_slots, n_aps)
            return self.model.loss(cos, tgt_out, update=True)

    def update(self) -> None:
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
        self.opt.step()

    def __call__(self, batch: Batch) -> Tensor:
        loss = self.loss(batch.src, batch.tgt_in, batch.tgt_out, batch.n_slots, batch.n_aps)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.update()
        return loss.detach()


class GraphedStep(EagerStep):
    """The eager step captured as one CUDA graph per batch shape and replayed."""

    def __init__(
        self,
        model: WitnessModel,
        net: nn.Module,
        optimizer: torch.optim.Optimizer,
        grad_clip: float,
        autocast: Autocast,
        warmup: int = 2,
        on_capture: Callable[[tuple, float], None] | None = None,
    ) -> None:
        super().__init__(model, net, optimizer, grad_clip, autocast)
        self.warmup, self.on_capture = warmup, on_capture
        self.graphs: dict[tuple, tuple[torch.cuda.CUDAGraph, Tensor, Tensor, Tensor, Tensor]] = {}
        self.pool = torch.cuda.graph_pool_handle()
        self.eager_steps = 0  # steps run without a graph (the first, which creates the optimiser state)

    def __call__(self, batch: Batch) -> Tensor:
        if not self.opt.state:  # AdamW's moments do not exist yet: create them outside any graph
            self.eager_steps += 1
            return super().__call__(batch)
        key = (tuple(batch.src.shape), tuple(batch.tgt_in.shape), batch.n_slots, batch.n_aps)
        entry = self.graphs.get(key) or self._capture(key, batch)
        graph, src, tgt_in, tgt_out, loss = entry
        src.copy_(batch.src)
        tgt_in.copy_(batch.tgt_in)
        tgt_out.copy_(batch.tgt_out)
        graph.replay()
        return loss

    def _capture(self, key: tuple, batch: Batch) -> tuple:
        import time

        t = time.perf_counter()
        src, tgt_in, tgt_out = batch.src.clone(), batch.tgt_in.clone(), batch.tgt_out.clone()
        args = (src, tgt_in, tgt_out, batch.n_slots, batch.n_aps)
        scale = self.model.logit_scale.clone()
        rng = torch.cuda.get_rng_state(), torch.get_rng_state()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(self.warmup):
                self.opt.zero_grad(set_to_none=True)
                self.loss(*args).backward()
        torch.cuda.current_stream().wait_stream(side)
        self.model.logit_scale.copy_(scale)
        torch.cuda.set_rng_state(rng[0])  # the warm-up draws nothing the training run sees
        torch.set_rng_state(rng[1])
        self.opt.zero_grad(set_to_none=True)  # the graph's backward allocates (and overwrites) its own grads
        torch.cuda.empty_cache()  # the warm-up's cached blocks: else the process holds the activations twice
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.pool):
            loss = self.loss(*args)
            loss.backward()
            self.update()
        entry = (graph, src, tgt_in, tgt_out, loss.detach())
        self.graphs[key] = entry
        if self.on_capture is not None:
            self.on_capture(key, time.perf_counter() - t)
        return entry


def graph_autocast(device: torch.device) -> Autocast:
    """bf16 autocast on CUDA without the weight-cast cache (required inside graph capture)."""
    return lambda: torch.autocast(device.type, dtype=torch.bfloat16, cache_enabled=False)
