"""One rank of the GPU test (make test-gpu): NCCL collectives on CuPy tensors and DDP on a GPU.

Each rank uses GPU LOCAL_RANK; the result goes to OUT/rank<r>.json."""
import json
import os
import sys
from datetime import timedelta

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ddp_problem as P  # noqa: E402

import learntorch as torch  # noqa: E402
import learntorch.distributed as dist  # noqa: E402
from learntorch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

local = int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(local)
dist.init_process_group("nccl", timeout=timedelta(seconds=120))
r, n = dist.get_rank(), dist.get_world_size()
dev = torch.device("cuda", local)
t = torch.ones(4, device=dev) * (r + 1)
dist.all_reduce(t)
seen = {"sum": t.cpu().tolist(), "over_nccl": dist.get_world_size() >= 1 and dist.group.WORLD.nccl is not None}
b = torch.full((3,), float(r), device=dev)
dist.broadcast(b, src=0)
seen["broadcast"] = b.cpu().tolist()
x, y = P.make_data(torch)
per = P.BATCH // n
model = P.make_model(torch, seed=100 + r).to(dev)
ddp = DDP(model, device_ids=[local])
P.train(torch, ddp, x[r * per:(r + 1) * per].to(dev), y[r * per:(r + 1) * per].to(dev))
seen["ddp_weights"] = [p.detach().cpu().numpy().tolist() for p in ddp.module.parameters()]
with open(os.path.join(sys.argv[1], f"rank{r}.json"), "w") as f:
    json.dump(seen, f)
