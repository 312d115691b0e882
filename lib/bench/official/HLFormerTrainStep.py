"""Official HLFormer code: one training step of main.py train_one_epoch (optimizer.zero_grad, model(batch),
criterion(input_list, batch), loss.backward(), optimizer.step()) at the paper's Charades configuration
(_hlformer.py) on a random batch of 128 videos (or $HLFORMER_BENCH_VIDEOS, which the Go benchmark reads
too) and 2.5 queries per video, hard negatives off (the first 20 epochs)."""
import os
import torch
import _hlformer
from Models.builder import get_models  # noqa: E402  (the official code, via _hlformer's sys.path)
from Losses.builder import get_losses  # noqa: E402
from Opts.builder import get_opts  # noqa: E402
from _common import run  # noqa: E402

cfg = _hlformer.config()
videos = int(os.environ.get("HLFORMER_BENCH_VIDEOS", "128"))
queries = videos * 5 // 2
torch.manual_seed(1)
model = get_models(cfg)
criterion = get_losses(cfg)
criterion.cfg["use_hard_negative"] = False
optimizer = get_opts(cfg, model, range(100))  # t_total = 100 batches × n_epoch (only the schedule reads it)
g = torch.Generator().manual_seed(7)
clips, frames, fmask = _hlformer.random_videos(videos, g)
tokens, tmask = _hlformer.random_queries(queries, g)
batch = {"clip_video_features": clips, "frame_video_features": frames, "videos_mask": fmask,
         "text_feat": tokens, "text_mask": tmask, "text_labels": [i * videos // queries for i in range(queries)]}
model.train()


def step():
    optimizer.zero_grad()
    input_list = model(batch)
    loss = criterion(input_list, batch)
    loss.backward()
    optimizer.step()
    return loss


run("HLFormerTrainStep", step, reps=3)
