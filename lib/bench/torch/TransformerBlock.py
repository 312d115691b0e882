"""Twin of lib/bench BenchmarkPairedTransformerBlock: training step (forward + backward)
of 2 pre-LN transformer layers, B=128, S=32, D=384, 6 heads, MLP 4x, exact GELU, MSE loss."""
import torch
import torch.nn.functional as F
from _common import inputs, run

B, S, D, H, L = 128, 32, 384, 6, 2
hd = D // H
g = torch.Generator().manual_seed(3)
x0 = torch.randn(B, S, D, generator=g)
target = torch.randn(B, S, D, generator=g)
weights = []
for _ in range(L):
    for shape in [(D, D)] * 4 + [(D, 4 * D), (4 * D, D)]:
        weights.append(0.02 * torch.randn(*shape, generator=g))
x0, target, *weights = inputs("TransformerBlock", x=x0, target=target, **{f"w{i}": w for i, w in enumerate(weights)})
weights = [w.requires_grad_() for w in weights]


def layer(x, w):
    h = F.layer_norm(x, (D,), eps=1e-5)
    q, k, v = [(h @ wi).view(B, S, H, hd) for wi in w[:3]]
    logits = torch.einsum("bqhd,bkhd->bhqk", q, k) / hd
    att = torch.einsum("bhqk,bkhd->bqhd", logits.softmax(-1), v).reshape(B, S, D)
    x = x + att @ w[3]
    h = F.layer_norm(x, (D,), eps=1e-5)
    return x + F.gelu(h @ w[4]) @ w[5]


def step():
    x = x0
    for l in range(L):
        x = layer(x, weights[6 * l:6 * l + 6])
    loss = ((x - target) ** 2).mean()
    grads = torch.autograd.grad(loss, weights)
    return loss, grads


run("TransformerBlock", step, reps=5, check=lambda out: {"loss": out[0], "grad_w0": out[1][0]})
