# Front door of fsgen. `make demo` and `make test` install what is missing, build, and run.
BUILD ?= build
JOBS ?= 2
FSGEN := $(BUILD)/fsgen

.PHONY: deps build demo test test-sanitize fuzz validate validate-power power-flow bench bench-power bench-models clean

deps:
	@./scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > /dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# The main job on the built-in example design: validate, generate + lint, simulate and
# cross-check a projection matmul and a fused GQA attention layer; a sparse attention core
# (value networks skipping zero queries and keys) simulated and cross-checked; a whole
# Llama-2-7B decode token on the LLM example design; then the power models trained on the
# shipped characterisation dataset and a fused attention layer's power trace.
demo: build
	$(FSGEN) check examples/os_8x8.yaml
	$(FSGEN) generate examples/os_8x8.yaml --lint
	$(FSGEN) simulate examples/os_8x8.yaml --m 32 --n 32 --k 32
	$(FSGEN) cosim examples/os_8x8.yaml --m 32 --n 32 --k 32
	$(FSGEN) simulate examples/os_8x8.yaml --kernel attention --tokens 32 --heads 4 --kv-heads 2
	$(FSGEN) cosim examples/os_8x8.yaml --kernel attention --tokens 32 --heads 4 --kv-heads 2
	$(FSGEN) simulate examples/sparse_attn_8x8.yaml --kernel attention --tokens 32 --zeros 0.5
	$(FSGEN) cosim examples/sparse_attn_8x8.yaml --kernel attention --tokens 32 --zeros 0.5
	$(FSGEN) simulate examples/llm_16x16.yaml --model Llama-2-7b --stage decode --context 512 --layers all
	$(FSGEN) train data/power/fsgen45.csv -o rtl_out/power_model.json
	$(FSGEN) power examples/ws_8x16.yaml --kernel attention --tokens 32 --heads 4 --kv-heads 2 \
	  --power-model rtl_out/power_model.json --window 64 --csv rtl_out/power_trace.csv --png rtl_out/power_trace.png

# Unit tests plus the CI slice of the Verilator cross-check.
test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 1500

# The reader, parser and numerics tests built with AddressSanitizer and UBSan (any report fails).
SANITIZE_TESTS ?= ModelConfig.*:Safetensors.*:Checkpoint.*:Liberty.*:Spec*:Csv.*:Program.*:GateSim.*:WriteFile.*:$\
	FolderLock.*:Tools.*:Numerics.*:AttentionNumerics.*:FfnNumerics.*:Statistics.*:Compression.*:Layer.*:Traffic.*:$\
	Synthetic.*:Graph.*:Quantize.*
test-sanitize: deps
	@cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFSGEN_SANITIZE=ON > /dev/null
	@cmake --build build-sanitize -j$(JOBS) --target fsgen_tests
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./build-sanitize/fsgen_tests --gtest_filter='$(SANITIZE_TESTS)'

# Each reader under libFuzzer for FUZZ_SECONDS (clang, ASan + UBSan; tests/fuzz/README.md).
FUZZ_SECONDS ?= 60
fuzz: build
	@./scripts/install-deps.sh fuzz
	@CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFSGEN_FUZZ=ON > /dev/null
	@cmake --build build-fuzz -j$(JOBS) --target fuzzers
	./tests/fuzz/run_fuzzers.sh build-fuzz $(FUZZ_SECONDS)

# The full cross-check matrix (slow), then the mixed-level runs (the arrays as RTL) over the
# dense and compressed-lane designs.
validate: build
	./validation/run_matrix.sh $(FSGEN)
	./validation/run_matrix.sh $(FSGEN) validation/sparse_specs.sh validation/sparse_cases.txt
	./validation/run_matrix.sh $(FSGEN) validation/dot_specs.sh validation/dot_cases.txt
	./validation/run_matrix.sh $(FSGEN) validation/epilogue_specs.sh validation/epilogue_cases.txt
	./validation/run_matrix.sh $(FSGEN) validation/head_tiles_specs.sh validation/head_tiles_cases.txt
	FSGEN_MIXED=arrays ./validation/run_matrix.sh $(FSGEN)
	FSGEN_MIXED=arrays ./validation/run_matrix.sh $(FSGEN) validation/dot_specs.sh validation/dot_cases.txt
	FSGEN_MIXED=core ./validation/run_matrix.sh $(FSGEN) validation/sparse_specs.sh validation/sparse_cases.txt

# Power models against gate-level golden power over the validation designs (slow; resumable).
validate-power: build
	./validation/power_validation.sh --fsgen $(FSGEN)

# The power flow on one liberty in one command: characterise, train, validate, one report
# (validation/power_flow.sh; LIBERTY=file.lib.gz, default the built-in fsgen45; SMALL=1: the
# two smallest sizes of each primitive; FOR_DESIGNS="a.yaml b.yaml": those designs' blocks at
# their own sizes too; slow, resumable).
power-flow: build
	./validation/power_flow.sh --fsgen $(FSGEN) $(if $(LIBERTY),--liberty $(LIBERTY)) $(if $(SMALL),--small) \
	  $(foreach d,$(FOR_DESIGNS),--for-design $(d))

bench: build
	$(FSGEN) bench

# Power estimation's cost next to the SystemC run (BENCHMARKS.md).
bench-power: build
	./validation/power_bench.sh --fsgen $(FSGEN)

# Every shipped model's prefill and decode step on llm_16x16 in the fast model (BENCHMARKS.md).
bench-models: build
	./validation/models_bench.sh $(FSGEN)

clean:
	rm -rf $(BUILD) rtl_out/*/
