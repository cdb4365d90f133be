"""Chapter 08: the collectives (集合通信) of learntorch.distributed, on MPI processes.

    python -m learntorch.distributed.run -n 3 hello_dist.py
    mpiexec -n 3 python hello_dist.py

Every rank runs this file; only rank 0 prints, so the output does not depend on
which process writes first.
"""
import learntorch as torch
import learntorch.distributed as dist

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()

t = torch.tensor([1.0, 2.0]) * (rank + 1)          # rank r holds (r+1) * [1, 2]
before = [torch.zeros(2) for _ in range(world)]
dist.all_gather(before, t)                         # every rank gets every rank's tensor
dist.all_reduce(t)                                 # in place: the sum over the ranks, on every rank
after = [torch.zeros(2) for _ in range(world)]
dist.all_gather(after, t)

w = torch.tensor([10.0 * (rank + 1)])
dist.broadcast(w, src=0)                           # in place: everyone gets rank 0's values
broadcast = [torch.zeros(1) for _ in range(world)]
dist.all_gather(broadcast, w)
dist.barrier()                                     # wait here until every rank has arrived

if rank == 0:
    print(f"world size {world}, backend {dist.get_backend()}")
    for r in range(world):
        print(f"rank {r}: t = {before[r].tolist()} -> after all_reduce {after[r].tolist()};"
              f"  w = {[10.0 * (r + 1)]} -> after broadcast from rank 0 {broadcast[r].tolist()}")
dist.destroy_process_group()
