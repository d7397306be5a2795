#!/bin/sh
# Builds btcpp-runner against a BehaviorTree.CPP source tree.
#   tools/btcppdiff/build.sh BTCPP_SOURCE_DIR [OUT]
# Needs cmake and a C++17 compiler (Debian: apt-get install cmake g++).
set -eu
src=$(cd "${1:?usage: build.sh BTCPP_SOURCE_DIR [OUT]}" && pwd)
out=${2:-$(pwd)/btcpp-runner}
here=$(cd "$(dirname "$0")" && pwd)
build=$src/build-botd
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBTCPP_SHARED_LIBS=OFF \
	-DBTCPP_BUILD_TOOLS=OFF -DBTCPP_EXAMPLES=OFF -DBUILD_TESTING=OFF \
	-DBTCPP_GROOT_INTERFACE=OFF -DBTCPP_SQLITE_LOGGING=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
g++ -std=c++17 -O1 -o "$out" "$here/runner.cpp" \
	-I"$src/include" -I"$src/3rdparty/tinyxml2" -I"$src/3rdparty" \
	-L"$build" -L"$build/3rdparty/tinyxml2" -L"$build/3rdparty/minitrace" \
	-lbehaviortree_cpp -ltinyxml2 -lminitrace -lpthread -ldl
echo "$out"
