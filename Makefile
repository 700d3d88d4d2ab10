# The entry points of the README: `make demo`, `make test`, `make install`, `make package`.
BUILD ?= build
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local

.PHONY: setup build demo test install package clean

setup:
	scripts/setup

build: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/src/lakestream demo

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The binary in PREFIX/bin, DuckDB's library in PREFIX/lib/lakestream, docs and bash completion.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# A Debian package (build/lakestream_VERSION_ARCH.deb): `sudo apt install ./build/lakestream_*.deb`.
package: build
	cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD)
