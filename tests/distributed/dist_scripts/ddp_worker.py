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

# ---------------------------------------------------------------- objects, reduce_scatter, all_to_all, groups
objs = [None] * n
dist.all_gather_object(objs, {"rank": r, "name": "r" * r})
seen["all_gather_object"] = objs
config = [{"lr": 0.1}, "s" * (r + 1)] if r == n - 1 else [None, None]
dist.broadcast_object_list(config, src=n - 1)
seen["broadcast_object_list"] = config
got = [None] * n if r == 1 else None
dist.gather_object([r, "x" * r], got, dst=1)
seen["gather_object"] = got
mine = [None]
dist.scatter_object_list(mine, [{"for": i, "pad": "p" * i} for i in range(n)] if r == 0 else None, src=0)
seen["scatter_object_list"] = mine[0]
objs = [None, None]
pending_objects = dist.isend(torch.zeros(1), send_to)  # a tensor message first: objects must not overtake it
dist.recv(torch.zeros(1), src=recv_from)
pending_objects.wait()
if r % 2 == 0:  # alternate so that blocking sends cannot all wait at once
    dist.send_object_list([r, "hi" * r], dst=send_to)
    seen["recv_object_list_source"] = dist.recv_object_list(objs)
else:
    seen["recv_object_list_source"] = dist.recv_object_list(objs)
    dist.send_object_list([r, "hi" * r], dst=send_to)
seen["recv_object_list"] = objs
out = torch.zeros(2)
dist.reduce_scatter_single(out, torch.arange(2. * n) + r)
seen["reduce_scatter_tensor"] = out.tolist()
out = torch.zeros(2, dtype=torch.int64)
dist.reduce_scatter(out, [torch.tensor([10 * j + r, r]) for j in range(n)], op=dist.ReduceOp.MAX)
seen["reduce_scatter"] = out.tolist()
out = torch.zeros(n)
dist.all_to_all_single(out, torch.tensor([100. * r + j for j in range(n)]))
seen["all_to_all_single"] = out.tolist()
rows = torch.cat([torch.full((j + 1, 2), 100. * r + j) for j in range(n)])
out = torch.zeros(n * (r + 1), 2)
work = dist.all_to_all_single(out, rows, [r + 1] * n, [j + 1 for j in range(n)], async_op=True)
work.wait()
seen["all_to_all_single_splits"] = out[:, 0].tolist()
outs = [torch.zeros(r + 1) for _ in range(n)]
dist.all_to_all(outs, [torch.full((j + 1,), 10. * r + j) for j in range(n)])
seen["all_to_all"] = [o.tolist() for o in outs]
box = torch.zeros(1)
works = dist.batch_isend_irecv([dist.P2POp(dist.isend, torch.tensor([float(r)]), send_to),
                                dist.P2POp(dist.irecv, box, recv_from)])
for w in works:
    w.wait()
seen["batch_isend_irecv"] = box.item()
w = dist.all_reduce(torch.ones(1), async_op=True)
seen["future_value"] = w.get_future().then(lambda fut: fut.value()[0] * 2).wait().tolist()
everyone = dist.new_group()
seen["everyone_ranks"] = dist.get_process_group_ranks(everyone)
tail = dist.new_group(list(range(n - 1, 0, -1)))  # ranks 1 … n-1: rank 0 is left out
seen["tail_is_member"] = tail is not dist.GroupMember.NON_GROUP_MEMBER
seen["tail_rank_size"] = [dist.get_rank(tail), dist.get_world_size(tail)]
t = torch.tensor([float(r)])
import warnings  # noqa: E402
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    seen["tail_all_reduce_returns"] = dist.all_reduce(t, group=tail)
seen["tail_warned"] = any("does not belong to the given group" in str(c.message) for c in caught)
seen["tail_sum"] = t.item()
if seen["tail_is_member"]:
    seen["tail_ranks"] = dist.get_process_group_ranks(tail)
    seen["tail_group_rank_of_me"] = dist.get_group_rank(tail, r)
    seen["tail_global_of_0"] = dist.get_global_rank(tail, 0)
    t = torch.tensor([float(r)])
    dist.broadcast(t, src=n - 1, group=tail)
    seen["tail_broadcast"] = t.item()
    t = torch.tensor([float(r)])
    dist.broadcast(t, group_src=0, group=tail)
    seen["tail_broadcast_group_src"] = t.item()
    names = [None] * (n - 1)
    dist.all_gather_object(names, f"rank{r}", group=tail)
    seen["tail_all_gather_object"] = names
    try:
        dist.get_group_rank(tail, 0)
    except ValueError as e:
        seen["tail_not_member_error"] = str(e)
    try:
        dist.broadcast(torch.ones(1), src=0, group=tail)
    except ValueError as e:
        seen["tail_bad_src_error"] = str(e)
dist.destroy_process_group(everyone)

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

# ---------------------------------------------------------------- communication hooks
from learntorch.distributed.algorithms.ddp_comm_hooks import default_hooks  # noqa: E402
hooked = DDP(P.make_model(torch), bucket_cap_mb=150 / 2**20)
bucket_log = []


def logging_hook(state, bucket):
    bucket_log.append([bucket.index(), bucket.is_last(), len(bucket.parameters()),
                       [tuple(g.shape) for g in bucket.gradients()] == [tuple(p.shape) for p in bucket.parameters()]])
    return default_hooks.allreduce_hook(state, bucket)


hooked.register_comm_hook(None, logging_hook)
P.train(torch, hooked, xs, ys)
seen["hook_weights"] = P.weights(hooked.module)
seen["hook_log"] = bucket_log[:2]
try:
    hooked.register_comm_hook(None, logging_hook)
except RuntimeError as e:
    seen["hook_twice"] = str(e)
fp16 = DDP(P.make_model(torch))
fp16.register_comm_hook(None, default_hooks.fp16_compress_hook)
P.train(torch, fp16, xs, ys)
seen["fp16_hook_weights"] = P.weights(fp16.module)
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
