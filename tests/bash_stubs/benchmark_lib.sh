# recipe-drift test stub of the benchmark harness library: the functions the
# fixture scripts call, with the gate semantics of shared/FORMATS.md section 4
# and no side effects. Sourced by the differential test, never by the tool.
export PORT="${PORT:-8888}"
check_env_vars() { :; }
wait_for_server_ready() { :; }
run_benchmark_serving() { :; }
start_gpu_monitor() { :; }
stop_gpu_monitor() { :; }
run_eval() { :; }
append_lm_eval_summary() { :; }
run_agentic_replay_and_write_outputs() { :; }
agentic_kv_offload_enabled() { [ "${KV_OFFLOADING:?}" != none ]; }
require_agentic_kv_offload_none() { [ "$KV_OFFLOADING" = none ] || exit 1; }
require_agentic_kv_offload_backend() {
    if [ "$KV_OFFLOADING" = none ]; then
        return 1
    fi
    if [ "$KV_OFFLOADING" = dram ] && [ "${KV_OFFLOAD_BACKEND:-}" = "$1" ] \
        && [[ "${TOTAL_CPU_DRAM_GB:-}" =~ ^[0-9]+$ ]] && [ "$TOTAL_CPU_DRAM_GB" -gt 0 ]; then
        return 0
    fi
    exit 1
}
