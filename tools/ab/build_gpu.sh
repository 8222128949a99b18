# Sourced by the tools/ab run scripts on the device: configure and build build-gpu (Release, the
# sm80 path for this GPU's arch) into build-gpu/logs, print the time, exit on a failed build.
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
t0=$(date +%s)
mkdir -p build-gpu/logs
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFLASHC_SM80_ARCHS="$cc" > build-gpu/logs/configure.log 2>&1 &&
  cmake --build build-gpu -j16 > build-gpu/logs/build.log 2>&1 || { tail -30 build-gpu/logs/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
