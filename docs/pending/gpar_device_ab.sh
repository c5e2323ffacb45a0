#!/bin/bash
# device A/B for h/gpar (not shipped): "seq" = RECBLUR_CUDA_CHAIN=seq (main's sequential chain for
# double-carry axes), "par" = the branch default (gated parallel chain), same binary, alternated
# packed by scripts/gpu_pack.sh BUILD test_gpu test_gpu_gauss_device test_gpu_wide_periodic test_gpu_host gpu_bench
B="bash _gpu/run.sh"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
cat _gpu/commit
t0=$(date +%s)
st() { echo "=== $1 ($(( $(date +%s) - t0 )) s)"; }
st "steps seq"; RECBLUR_CUDA_CHAIN=seq RECBLUR_CUDA_PROFILE=1 timeout 60 $B gpu_bench --gauss-steps 2>&1 | grep -v "^  \[" | tail -8
st "steps par"; RECBLUR_CUDA_PROFILE=1 timeout 60 $B gpu_bench --gauss-steps 2>&1 | grep -v "^  \[" | tail -8
for w in seq par seq par; do
  st "chain-gauss $w"
  if [ $w = seq ]; then export RECBLUR_CUDA_CHAIN=seq; else unset RECBLUR_CUDA_CHAIN; fi
  timeout 70 $B gpu_bench --chain-gauss 2>&1 | grep -v "^  \[" | tail -12
done
unset RECBLUR_CUDA_CHAIN
st "tests"
RB_TEST_ORDERS=4 timeout 60 $B test_gpu_gauss_device 2>&1 | tail -5
RB_TEST_ORDERS=4 timeout 60 $B test_gpu_wide_periodic 2>&1 | tail -6
RB_TEST_ORDERS=4 timeout 60 $B test_gpu_host 2>&1 | tail -8
RB_TEST_ORDERS=4 timeout 90 $B test_gpu 2>&1 | tail -10
st "gauss table par"; timeout 90 $B gpu_bench --gauss 2>&1 | grep -v "^  \[" | tail -28
st end
