/** The help text of `npm run loadtest`: printed by --help, and after a command line it refuses. */
import { SCENARIO_IDS } from "./args.js";

export const USAGE = `usage: npm run loadtest -- (--local | --target URL --key KEY | --stack NAME --key KEY) [options]
       npm run loadtest -- --k6-env --stack NAME [--target URL]   (default: the stack's API URL)

target
      --local                   the service (synthetic agents) behind a real nginx on 127.0.0.1
      --target URL              a deployed API (origin without /v1), with --key KEY
      --key KEY                 the API key for --target
      --stack NAME              limits and SLOs from stacks/Pulumi.NAME.yaml (default with --local: local);
                                without --target, the target is the stack's API URL
      --stack-outputs FILE      \`pulumi stack output --json\` of that stack: its apiBaseUrl is the target
      --stacks-dir DIR          where the stack files are
      --time-scale F            multiply every timeout by F (--local only; e.g. 0.02)
      --nginx PATH              nginx binary (default: nginx on PATH)
      --k6-env                  print the stack's limits as k6 -e settings, and exit
limits (override the stack's)
      --connect-timeout-ms N    the gateway's connect timeout
      --read-timeout-ms N       the gateway's read timeout (idle time between two reads)
      --write-timeout-ms N      the gateway's write timeout
      --heartbeat-seconds F     the service's heartbeat interval
      --client-body-buffer-size SIZE
                                the gateway's body buffer (a larger body spills to disk)
      --max-body-size SIZE      the gateway's body limit
      --json-body-limit SIZE    the service's JSON body limit
      --file-max-bytes SIZE     the service's file size limit
traffic bounds
      --dry-run                 print what the run would send, send nothing, exit
      --max-bytes SIZE          request bytes the run may send (64m): a plan over it is refused;
                                a non-loopback target gets more than 64m only with --exceed-cap
      --exceed-cap              send what the plan needs, over any cap
workload and thresholds
      --data SPEC               sizes in tokens: prompt_tokens=N,output_tokens=N (GuideLLM's syntax)
      --arrivals KIND           the sweep's arrivals: constant (evenly spaced) or poisson
      --warmup N                unmeasured streams before the streaming scenario and each rate (2)
      --prefill-ms N            --local: the agent's wait before its first token (20)
      --scenarios LIST          ${SCENARIO_IDS.join(",")} (default: all)
      --concurrency N           streams in flight (16)
      --requests N              streams of the streaming scenario (64)
      --files N                 files of the files scenario (24), --file-concurrency N (4)
      --stream-tokens N         tokens per stream (32), --token-interval-ms N between them (5)
      --max-duration S          no new work after S seconds (300); work in flight is aborted
                                10 % later (5 to 30 s)
      --ttft-p95-ms N           TTFT p95 budget (1000), --request-p95-ms N for the rest (1000)
      --itl-p95-ms N            inter-token p95 budget, --e2e-p95-ms N stream end-to-end p95 budget
      --max-error-rate F        share of failed streams allowed (0); all five default to the stack's slo:
      --baseline FILE           compare with an earlier run's --json report; exit 1 when a metric got worse
                                (its whole 95 % bootstrap interval beyond the tolerance; see the guide)
      --tolerance F             relative change allowed per metric before it counts as worse (0.1)
      --compare FILE            judge a finished run's --json report against --baseline; send nothing
      --ceiling-seconds S       measure the harness's own ceiling for S seconds (2; 0 skips)
      --profile KIND            a load profile after the scenarios (GuideLLM's names; alone, it runs
                                without them): synchronous (one stream at a time), throughput
                                (--concurrency in flight), constant or poisson (at each of --rates),
                                sweep (synchronous, throughput, then --sweep-points rates between:
                                the knee and the highest rate that met every SLO)
      --rates LIST              the rates of constant or poisson in req/s (e.g. 1,5,10); alone: constant
      --sweep-points N          a sweep's rates between synchronous and throughput (5)
      --rate-seconds S          how long each point lasts: rate × S streams (10); a closed-loop
                                point, or a sweep's rate, at most --requests streams
deployed targets
      --stream-model ID         the streaming agent (agentport/synthetic-20)
      --silent-model ID         an agent silent past the read timeout, --silence-ms N its silence
      --member-token JWT        key management for the revocation scenario, with --project ID
output
      --json FILE               the whole report as JSON
      --html FILE               the report as one HTML file (tables and charts, no scripts)
      --junit FILE              each check a JUnit test case (CI shows failed checks as failed tests)
      --csv FILE                the per-request samples (scenario, op, start, latency, TTFT, tokens, ok)
  -h, --help                    this text
      --version                 the agentport version
`;
