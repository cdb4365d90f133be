"""One rank of the distributed tests: runs every check and writes what it saw to OUT/rank<r>.json.

Started by tests/distributed/test_distributed.py with mpiexec (or learntorch.distributed.run)."""
import json
import os
import sys
import time
from datetime import timedelta

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ddp_problem as P  # noqa: E402

import learntorch as torch  # noqa: E402
import learntorch.distributed as dist  # noqa: E402
from learntorch.autograd.engine import current_task  # noqa: E402
from learntorch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

out_dir = sys.argv[1]
dist.init_process_group("gloo", timeout=timedelta(seconds=60))
r, n = dist.get_rank(), dist.get_world_size()
seen: dict = {"rank": r, "world": n, "env_rank": os.environ.get("RANK"), "backend": dist.get_backend()}

# ---------------------------------------------------------------- collectives
t = torch.ones(3) * (r + 1)
v0 = t._version
dist.all_reduce(t)
seen["sum"] = t.tolist()
seen["version_bumped"] = t._version > v0
for name in ("MAX", "MIN", "PRODUCT", "AVG"):
    t = torch.tensor([float(r + 1), -float(r)])
    dist.all_reduce(t, op=getattr(dist.ReduceOp, name))
    seen[name] = t.tolist()
t = torch.tensor([r + 1, 10 * r])  # int64
dist.all_reduce(t)
seen["int_sum"] = t.tolist()
base = torch.arange(6.).reshape(2, 3) + r
view = base.t()  # not contiguous: goes through a copy and back into base
dist.all_reduce(view)
seen["view_base"] = base.tolist()
t = torch.ones(2) * (r + 1)
work = dist.all_reduce(t, async_op=True)
seen["async_wait"] = work.wait()
seen["async_done"] = work.is_completed()
seen["async_value"] = t.tolist()
t = torch.full((2,), float(r))
dist.broadcast(t, src=n - 1)
seen["broadcast"] = t.tolist()
if r == 0:
    time.sleep(0.4)
start = time.monotonic()
seen["barrier_returns"] = dist.barrier()
seen["barrier_wait"] = time.monotonic() - start
parts = [torch.zeros(2) for _ in range(n)]
dist.all_gather(parts, torch.tensor([float(r), float(r * r)]))
seen["all_gather"] = [p.tolist() for p in parts]
whole = torch.zeros(n * 2)
dist.all_gather_into_tensor(whole, torch.tensor([float(r), 1.0]))
seen["all_gather_into_tensor"] = whole.tolist()
t = torch.ones(2) * (r + 1)
dist.reduce(t, dst=0)
seen["reduce"] = t.tolist()
got = [torch.zeros(1) for _ in range(n)] if r == 1 else None
dist.gather(torch.tensor([float(r)]), got, dst=1)
seen["gather"] = None if got is None else [g.item() for g in got]
t = torch.zeros(2)
dist.scatter(t, [torch.tensor([float(i), 7.0]) for i in range(n)] if r == 0 else None, src=0)
seen["scatter"] = t.tolist()
send_to, recv_from = (r + 1) % n, (r - 1) % n  # a ring of point-to-point messages
box = torch.zeros(1)
pending = dist.isend(torch.tensor([float(r)]), send_to)
seen["recv_source"] = dist.recv(box)
pending.wait()
seen["recv_value"] = box.item()
try:
    dist.broadcast(torch.ones(1), src=n)
except RuntimeError as e:
    seen["bad_root"] = str(e)
try:
    dist.init_process_group("gloo")
except ValueError as e:
    seen["init_twice"] = str(e)

# ---------------------------------------------------------------- DDP: equal start, equal end
x, y = P.make_data(torch)
per = P.BATCH // n
xs, ys = x[r * per:(r + 1) * per], y[r * per:(r + 1) * per]

model = P.make_model(torch, seed=100 + r)  # each rank its own random start ...
seen["before_broadcast"] = P.weights(model)
ddp = DDP(model)                             # ... until DDP broadcasts rank 0's
seen["after_broadcast"] = P.weights(ddp.module)
seen["default_buckets"] = [b.indices for b in ddp.reducer.buckets]
seen["state_dict_keys"] = list(ddp.state_dict())
P.train(torch, ddp, xs, ys)
seen["ddp_weights"] = P.weights(ddp.module)

# ---------------------------------------------------------------- buckets: one per parameter, hook driven
calls = []
real_all_reduce = dist.all_reduce


def spy(tensor, *args, **kwargs):
    calls.append({"numel": tensor.numel(), "in_backward": current_task() is not None})
    return real_all_reduce(tensor, *args, **kwargs)


dist.all_reduce = spy
small = DDP(P.make_model(torch), bucket_cap_mb=1e-6)  # every parameter fills a bucket of its own
seen["small_buckets"] = [b.indices for b in small.reducer.buckets]
calls.clear()
P.train(torch, small, xs, ys)
seen["small_calls"] = calls[:len(small.reducer.buckets)]
seen["small_launch_log"] = small.reducer.launch_log
seen["small_weights"] = P.weights(small.module)
middle = DDP(P.make_model(torch), bucket_cap_mb=150 / 2**20)  # about 150 bytes: a few buckets
seen["middle_buckets"] = [b.indices for b in middle.reducer.buckets]
P.train(torch, middle, xs, ys)
seen["middle_weights"] = P.weights(middle.module)

# ---------------------------------------------------------------- no_sync: accumulation, one all-reduce per step
acc = DDP(P.make_model(torch))
calls.clear()
P.train(torch, acc, xs, ys, micro_batches=2, no_sync=acc.no_sync)
seen["no_sync_calls"] = len(calls)
seen["no_sync_weights"] = P.weights(acc.module)
calls.clear()
with acc.no_sync():
    acc.zero_grad()
    torch.nn.functional.mse_loss(acc(xs), ys).backward()
seen["no_sync_local_grads"] = [p.grad.tolist() for p in acc.parameters()]  # this rank's own data only
seen["no_sync_backward_calls"] = len(calls)
dist.all_reduce = real_all_reduce

# ---------------------------------------------------------------- buffers follow rank 0
bn_net = torch.nn.Sequential(torch.nn.Linear(5, 3), torch.nn.BatchNorm1d(3))
bn = DDP(bn_net)
with torch.no_grad():
    bn_net[1].running_mean.fill_(float(r + 5))
bn.eval()
bn(xs)
seen["bn_running_mean"] = bn_net[1].running_mean.tolist()


# ---------------------------------------------------------------- unused parameters
class TwoHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(5, 2)
        self.unused = torch.nn.Linear(5, 2)

    def forward(self, x):
        return self.body(x)


found = DDP(TwoHeads(), find_unused_parameters=True)
P.train(torch, found, xs, ys)
seen["unused_grad_is_none"] = found.module.unused.weight.grad is None
seen["unused_body_weights"] = P.weights(found.module.body)
seen["unused_unused_weights"] = P.weights(found.module.unused)
errors = {}
try:
    DDP(torch.nn.Linear(2, 2).requires_grad_(False))
except RuntimeError as e:
    errors["no_grad_params"] = str(e)
try:
    DDP(torch.nn.Linear(2, 2), device_ids=[0])
except ValueError as e:
    errors["device_ids_cpu"] = str(e)
strict = DDP(TwoHeads())  # last: its first backward leaves a bucket unfinished
torch.nn.functional.mse_loss(strict(xs), ys).backward()
try:
    strict(xs)
except RuntimeError as e:
    errors["unfinished"] = str(e)
seen["errors"] = errors

with open(os.path.join(out_dir, f"rank{r}.json"), "w") as f:
    json.dump(seen, f)
