# Source on the GPU machine after scripts/device_setup.sh: the package, the
# carried tools and the library FileCheck needs.
export PYTHONPATH=$PWD/python PATH=$PWD/.device/bin:$PATH \
       LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
       WARPFORGE_BUILD_DIR=$PWD/.device
# The commit the carried core was packed from (the device's copy of .git
# may be older): what benchmark reports record.
if [ -f .device/commit ]; then
  export WARPFORGE_GIT_COMMIT=$(cat .device/commit)
fi
