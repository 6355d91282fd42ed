# Front door of fsgen. `make demo` and `make test` install what is missing, build, and run.
BUILD ?= build
JOBS ?= 2
FSGEN := $(BUILD)/fsgen

.PHONY: deps build demo test validate bench clean

deps:
	@./scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > /dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# The main job on the built-in example design: validate, generate + lint, simulate and
# cross-check a projection matmul and a fused GQA attention layer; then a whole Llama-2-7B
# decode token on the LLM example design.
demo: build
	$(FSGEN) check examples/os_8x8.yaml
	$(FSGEN) generate examples/os_8x8.yaml --lint
	$(FSGEN) simulate examples/os_8x8.yaml --m 32 --n 32 --k 32
	$(FSGEN) cosim examples/os_8x8.yaml --m 32 --n 32 --k 32
	$(FSGEN) simulate examples/os_8x8.yaml --kernel attention --tokens 32 --heads 4 --kv-heads 2
	$(FSGEN) cosim examples/os_8x8.yaml --kernel attention --tokens 32 --heads 4 --kv-heads 2
	$(FSGEN) simulate examples/llm_16x16.yaml --model Llama-2-7b --stage decode --context 512 --layers all

# Unit tests plus the CI slice of the Verilator cross-check.
test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 1500

# The full cross-check matrix (slow).
validate: build
	./validation/run_matrix.sh $(FSGEN)

bench: build
	$(FSGEN) bench

clean:
	rm -rf $(BUILD) rtl_out/*/
