// Demo conversations in English: a deploy pipeline (long enough to reach the archive), billing
// webhooks, an evaluation of vector stores, and a scratch session.
import type { DemoSession } from "./demo-types.ts";

export const deployPipeline: DemoSession = {
  id: "deploy-pipeline",
  endedDaysAgo: 0.2,
  user: "maya",
  pace: 6,
  turns: [
    [
      "user",
      "Our GitHub Actions deploy takes 14 minutes. Most of it is `npm ci` and the Docker build. Where do we start?",
    ],
    [
      "assistant",
      "Start with caching. Cache the npm store keyed on package-lock.json, and turn on BuildKit layer caching with `cache-from: type=gha`. Those two usually cut a Node service build by more than half.",
    ],
    [
      "user",
      "Done. Builds are down to 6 minutes. Next: we deploy straight to all pods and last week a bad migration took the API down for 20 minutes.",
    ],
    [
      "assistant",
      "Two changes. Run migrations as a separate job before the rollout, and make them backward compatible (expand, then contract in a later release). Then roll out behind a canary: 10% of traffic for ten minutes, watching the error rate and p95 latency.",
    ],
    ["user", "How do we decide automatically whether the canary is healthy?"],
    [
      "assistant",
      "Compare the canary with the stable pods over the same window: error rate no more than 1.5x stable, p95 latency no more than 1.2x. Argo Rollouts or Flagger can run that analysis and abort on their own.",
    ],
    ["user", "We're on plain Kubernetes Deployments. Is Argo Rollouts a big change?"],
    [
      "assistant",
      "Moderate. You replace the Deployment with a Rollout resource (same pod template) and add an AnalysisTemplate that queries Prometheus. The rest of the manifests stay. Plan an afternoon for one service.",
    ],
    [
      "user",
      "Let's do it for the API service first. What about rollbacks? Today we re-run the previous pipeline, which takes 6 minutes.",
    ],
    [
      "assistant",
      "Keep the previous image tagged (`api:previous`) and let Argo abort the rollout: traffic flips back to the stable ReplicaSet in seconds, with no rebuild. Document the manual command too: `kubectl argo rollouts undo api`.",
    ],
    ["user", "Should we also block deploys on Friday afternoons? Half the team wants it."],
    [
      "assistant",
      "A freeze hides the real problem, which is risky deploys. With canaries and a fast rollback, small deploys any day are safer than big Monday ones. If you want a guard, require a second approver after 3 pm on Fridays rather than a freeze.",
    ],
    ["user", "Fair. Smoke tests: we have none after deploy. What's the minimum?"],
    [
      "assistant",
      "Three checks from outside the cluster: the health endpoint, one authenticated read (GET /v1/me with a test account), and one write that is cleaned up afterwards. Run them against the canary's service name before the analysis starts.",
    ],
    ["user", "The canary service name changes per rollout. How do the smoke tests find it?"],
    [
      "assistant",
      "Argo Rollouts supports a canaryService: a fixed Service that always points at the canary pods. Point the smoke tests at api-canary.default.svc and they never need to know the ReplicaSet hash.",
    ],
    ["user", "Great. Last thing: secrets. The pipeline uses a long-lived AWS key stored in GitHub secrets."],
    [
      "assistant",
      "Replace it with OIDC: GitHub Actions can assume an IAM role through its OIDC token, so there is no stored key to leak or rotate. Limit the role's trust policy to your repository and the main branch.",
    ],
    ["user", "OK, I'll set up OIDC this week. Can you write the Rollout for the API service with a 10% canary?"],
    [
      "assistant",
      "Here is the plan: steps setWeight 10, pause 10m with analysis, setWeight 50, pause 5m, then full. The AnalysisTemplate runs two Prometheus queries (error ratio and p95 latency) every minute and fails after two bad readings. I'll put the YAML in deploy/rollout-api.yaml.",
    ],
  ],
  summary: {
    key_decisions: [
      "Do: cache the npm store and Docker layers in CI",
      "Do: run database migrations as a separate, backward-compatible job before the rollout",
      "Do: roll out the API behind a 10% canary analysed by Argo Rollouts",
      "Do: roll back by aborting the rollout; keep the previous image tagged",
      "Don't: freeze deploys on Fridays; require a second approver after 3 pm instead",
      "Do: use GitHub OIDC instead of a stored AWS key",
    ],
    past_discussions: [
      {
        topic: "CI build time",
        description: "The deploy took 14 minutes; npm and Docker layer caching brought it to 6.",
        direction: "Keep the caches; watch the cache hit rate.",
        last_discussed: "",
      },
      {
        topic: "Post-deploy smoke tests",
        description:
          "Three external checks (health, authenticated read, cleaned-up write) against the fixed canary service.",
        direction: "Run them before the canary analysis starts.",
        last_discussed: "",
      },
    ],
    current_discussion: {
      topic: "Canary rollout for the API service",
      description: "A Rollout with 10% and 50% steps, analysed on error ratio and p95 latency from Prometheus.",
      perspectives: "maya wants it on the API first; the assistant suggests one afternoon per service.",
      direction: "Write deploy/rollout-api.yaml and set up OIDC this week.",
    },
  },
};

export const billingWebhooks: DemoSession = {
  id: "billing-webhooks",
  endedDaysAgo: 4,
  user: "sam",
  pace: 4,
  turns: [
    [
      "user",
      "Stripe sometimes delivers the same invoice.paid webhook twice and we credit the account twice. How do we stop that?",
    ],
    [
      "assistant",
      "Make the handler idempotent: store each event id in a processed_events table with a unique index, and do the credit in the same transaction. A duplicate then fails the insert and you skip it.",
    ],
    ["user", "What if our handler times out after crediting but before answering 200?"],
    [
      "assistant",
      "Stripe retries, the insert hits the unique index, and you answer 200 without crediting again. That is exactly the case the table is for. Keep the handler fast and do slow work from a queue.",
    ],
    ["user", "We also need to migrate 2 million old invoices to the new schema. Any advice?"],
    [
      "assistant",
      "Backfill in batches of 500 ordered by id, behind a feature flag, writing to both schemas until the backfill is verified. Log the last id done so a restart resumes. Verify with counts and a checksum per day.",
    ],
    ["user", "Should reads switch to the new schema before the backfill ends?"],
    [
      "assistant",
      "No. Switch reads only after verification, and keep dual writes for one release so you can switch back.",
    ],
  ],
  summary: {
    key_decisions: [
      "Do: deduplicate Stripe webhooks by event id with a unique index, in the same transaction as the credit",
      "Do: backfill invoices in batches of 500 behind a feature flag, resumable by last id",
      "Don't: switch reads to the new schema before the backfill is verified",
    ],
    past_discussions: [
      {
        topic: "Duplicate invoice.paid webhooks",
        description:
          "Accounts were credited twice; a processed_events table with a unique index makes the handler idempotent.",
        direction: "Answer 200 for duplicates; move slow work to a queue.",
        last_discussed: "",
      },
    ],
    current_discussion: {
      topic: "Invoice schema migration",
      description: "2 million invoices move to the new schema with dual writes and a verified backfill.",
      perspectives: "",
      direction: "Verify with counts and daily checksums, then switch reads; keep dual writes one release.",
    },
  },
};

export const researchNotes: DemoSession = {
  id: "research-notes",
  endedDaysAgo: 45,
  user: "lee",
  pace: 9,
  turns: [
    ["user", "We need semantic search over about 300k support tickets. pgvector or a separate vector database?"],
    [
      "assistant",
      "At 300k vectors pgvector with an HNSW index is plenty, and it keeps tickets and vectors in one transaction. A separate store pays off past tens of millions of vectors or when you need hybrid ranking built in.",
    ],
    ["user", "What embedding dimension should we pick?"],
    [
      "assistant",
      "384 to 768 is the usual trade-off. Measure recall@10 on a few hundred real queries with two models before deciding; the dimension matters less than the model.",
    ],
  ],
};

export const tempScratch: DemoSession = {
  id: "temp-scratch",
  endedDaysAgo: 0.05,
  user: "maya",
  pace: 1,
  turns: [
    ["user", "Quick one: the cron expression for every 15 minutes?"],
    ["assistant", "*/15 * * * *"],
  ],
};
