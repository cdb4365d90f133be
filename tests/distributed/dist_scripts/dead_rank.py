"""A rank that dies or hangs before an all_reduce: the others must fail with a clear error.

usage: dead_rank.py MODE TIMEOUT_S
MODE: exit = rank 1 calls os._exit(3); hang = rank 1 sleeps;
      finish = no failure: rank 1 ends first, rank 0 half a second later (both must succeed)"""
import os
import sys
import time
from datetime import timedelta

import learntorch as torch
import learntorch.distributed as dist

mode, timeout = sys.argv[1], float(sys.argv[2])
dist.init_process_group("mpi", timeout=timedelta(seconds=timeout))
t = torch.ones(3)
dist.all_reduce(t)  # everyone is there
print(f"rank {dist.get_rank()} ready", flush=True)
if mode == "finish":
    if dist.get_rank() == 0:
        time.sleep(2)
    print(f"rank {dist.get_rank()} finished", flush=True)
    sys.exit(0)
if dist.get_rank() == 1:
    if mode == "exit":
        os._exit(3)
    time.sleep(120)
dist.all_reduce(t)
print("UNREACHABLE: all_reduce returned without rank 1", flush=True)
