"""``learntorch.distributed.algorithms``: only DDP's communication hooks (``ddp_comm_hooks``)."""
