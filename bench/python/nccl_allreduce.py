"""PyTorch's contender of the several-GPU benchmark (bench/multi-gpu-run.sh).

torch.distributed.all_reduce (NCCL backend), two processes (one per GPU) spawned here, float32 sum, out of place
(a copy into the output tensor is not made: all_reduce is in place in PyTorch, so the input is re-filled outside
the timed loop only once; NCCL's cost does not depend on the values), timed like nccl-tests: host clock around
`iters` calls with the stream synchronised before and after. Rank 0 prints JSON lines in bench/README.md's format
(contender "python-torch"): `nccl.allreduce.<bytes>` (bus bandwidth GB/s) and `nccl.allreduce.8B.latency` (µs).

    python3 bench/python/nccl_allreduce.py [--min-bytes 8] [--max-bytes 1073741824] [--iters 20] [--warmup 5]
"""

import argparse
import json
import os
import socket
import statistics
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank: int, world: int, port: int, args: argparse.Namespace) -> None:
    import torch
    import torch.distributed as dist

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", rank))
    buf = torch.ones(args.max_bytes // 4, dtype=torch.float32, device="cuda")
    nbytes = args.min_bytes
    while nbytes <= args.max_bytes:
        count = nbytes // 4
        if count == 0:
            nbytes *= 2
            continue
        t = buf[:count]
        for _ in range(args.warmup):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        samples = []
        for _ in range(5):
            dist.barrier()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(args.iters):
                dist.all_reduce(t)
            torch.cuda.synchronize()
            samples.append((time.perf_counter() - t0) / args.iters)
        sec = statistics.median(samples)
        busbw = count * 4 / sec / 1e9 * (2 * (world - 1) / world)
        if rank == 0:
            note = f"torch.distributed.all_reduce, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, {world} processes"
            print(json.dumps({"contender": "python-torch", "measure": f"nccl.allreduce.{count * 4}", "value": round(busbw, 4), "unit": "GB/s", "us": round(sec * 1e6, 3), "note": note}), flush=True)
            if count * 4 == 8:
                print(json.dumps({"contender": "python-torch", "measure": "nccl.allreduce.8B.latency", "value": round(sec * 1e6, 3), "unit": "us"}), flush=True)
        nbytes *= 2
    dist.destroy_process_group()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--min-bytes", type=int, default=8)
    p.add_argument("--max-bytes", type=int, default=1 << 30)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    args = p.parse_args()
    import torch
    import torch.multiprocessing as mp

    world = torch.cuda.device_count()
    if world < 2:
        raise SystemExit(f"nccl_allreduce.py: needs two GPUs, found {world}")
    world = 2
    mp.spawn(worker, args=(world, free_port(), args), nprocs=world, join=True)


if __name__ == "__main__":
    main()
