// A realistic error memory: 64 tool errors with their fixes across git, npm, docker, psql, pytest, curl,
// kubectl, ssh, pip, cargo, tsc and terraform, and paraphrased sightings of some of them.
export interface FixtureRecord {
  key: string;
  tool: string;
  error: string;
  cause?: string;
  fix: string;
  outcome: "resolved" | "failed" | "abandoned";
  keywords?: string[];
}

export const RECORDS: FixtureRecord[] = [
  // git
  {
    key: "git-push-behind",
    tool: "git",
    error:
      "! [rejected] main -> main (fetch first)\nerror: failed to push some refs to 'github.com:acme/api.git'\nhint: Updates were rejected because the remote contains work that you do not have locally.",
    cause: "someone pushed to main after our last pull",
    fix: "git pull --rebase origin main, resolve conflicts, then git push",
    outcome: "resolved",
    keywords: ["push", "rejected", "rebase"],
  },
  {
    key: "git-push-force-protected",
    tool: "git",
    error:
      "remote: error: GH006: Protected branch update failed for refs/heads/main.\n! [remote rejected] main -> main (protected branch hook declined)",
    cause: "main is a protected branch; direct pushes are not allowed",
    fix: "tried git push --force-with-lease; still declined. Push a feature branch and open a pull request instead",
    outcome: "failed",
    keywords: ["protected branch"],
  },
  {
    key: "git-merge-conflict",
    tool: "git",
    error:
      "CONFLICT (content): Merge conflict in src/server/routes.ts\nAutomatic merge failed; fix conflicts and then commit the result.",
    fix: "edit the conflicted hunks, git add src/server/routes.ts, git commit (or git rebase --continue)",
    outcome: "resolved",
    keywords: ["merge", "conflict"],
  },
  {
    key: "git-publickey",
    tool: "git",
    error:
      "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights and the repository exists.",
    cause: "the ssh agent had no key loaded",
    fix: "ssh-add ~/.ssh/id_ed25519 and check with ssh -T git@github.com",
    outcome: "resolved",
    keywords: ["ssh", "publickey"],
  },
  {
    key: "git-index-lock",
    tool: "git",
    error:
      "fatal: Unable to create '/home/dev/proj/.git/index.lock': File exists.\nAnother git process seems to be running in this repository",
    cause: "a crashed git process left the lock file behind",
    fix: "make sure no git process runs, then rm .git/index.lock",
    outcome: "resolved",
    keywords: ["index.lock"],
  },
  {
    key: "git-unrelated-histories",
    tool: "git",
    error: "fatal: refusing to merge unrelated histories",
    cause: "the remote was initialised with its own README commit",
    fix: "git pull origin main --allow-unrelated-histories, then resolve and commit",
    outcome: "resolved",
  },
  {
    key: "git-not-repo",
    tool: "git",
    error: "fatal: not a git repository (or any of the parent directories): .git",
    cause: "the command ran in the wrong working directory",
    fix: "cd into the project root (or git init for a new project)",
    outcome: "resolved",
  },
  {
    key: "git-large-file",
    tool: "git",
    error:
      "remote: error: File data/dump.sql is 312.45 MB; this exceeds GitHub's file size limit of 100.00 MB\nremote: error: GH001: Large files detected. You may want to try Git Large File Storage",
    fix: "remove the file from history with git filter-repo --path data/dump.sql --invert-paths, add it to .gitignore, use git lfs for big assets",
    outcome: "resolved",
    keywords: ["lfs", "large file"],
  },
  {
    key: "git-detached",
    tool: "git",
    error:
      "fatal: You are not currently on a branch.\nTo push the history leading to the current (detached HEAD) state now, use git push origin HEAD:<name-of-remote-branch>",
    fix: "git switch -c fix-branch to keep the commits, then push that branch",
    outcome: "resolved",
    keywords: ["detached head"],
  },
  {
    key: "git-dubious-ownership",
    tool: "git",
    error:
      "fatal: detected dubious ownership in repository at '/workspace/app'\nTo add an exception for this directory, call: git config --global --add safe.directory /workspace/app",
    cause: "the checkout is owned by another uid inside the container",
    fix: "git config --global --add safe.directory /workspace/app",
    outcome: "resolved",
  },
  // npm
  {
    key: "npm-eacces-global",
    tool: "npm",
    error:
      "npm ERR! code EACCES\nnpm ERR! syscall mkdir\nnpm ERR! path /usr/local/lib/node_modules/typescript\nnpm ERR! Error: EACCES: permission denied, mkdir '/usr/local/lib/node_modules/typescript'",
    cause: "global installs write to a root-owned prefix",
    fix: "npm config set prefix ~/.npm-global and add ~/.npm-global/bin to PATH (never sudo npm)",
    outcome: "resolved",
    keywords: ["eacces", "global", "permissions"],
  },
  {
    key: "npm-eresolve",
    tool: "npm",
    error:
      'npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! Found: react@18.3.1\nnpm ERR! Could not resolve dependency: peer react@"^17.0.0" from react-beautiful-dnd@13.1.1',
    cause: "a package declares an older peer dependency range",
    fix: "upgrade to a version that supports react 18 (@hello-pangea/dnd); --legacy-peer-deps only as a stopgap",
    outcome: "resolved",
    keywords: ["peer dependency", "eresolve"],
  },
  {
    key: "npm-enoent-package-json",
    tool: "npm",
    error:
      "npm ERR! code ENOENT\nnpm ERR! syscall open\nnpm ERR! path /home/dev/package.json\nnpm ERR! enoent Could not read package.json: Error: ENOENT: no such file or directory, open '/home/dev/package.json'",
    fix: "run npm in the folder that has package.json (or npm init -y)",
    outcome: "resolved",
  },
  {
    key: "npm-e404",
    tool: "npm",
    error:
      "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%2finternal-ui - Not found",
    cause: "the scoped package lives in the private registry, not on npmjs",
    fix: "add @acme:registry=https://npm.acme.dev to .npmrc with an auth token from the environment",
    outcome: "resolved",
    keywords: ["registry", "scope"],
  },
  {
    key: "npm-node-gyp",
    tool: "npm",
    error:
      "gyp ERR! find Python Python is not set from command line or npm configuration\ngyp ERR! stack Error: Could not find any Python installation to use\nnpm ERR! command failed npm ERR! command sh -c node-gyp rebuild",
    cause: "native addon build needs python3 and a compiler",
    fix: "apt-get install python3 make g++ then npm rebuild",
    outcome: "resolved",
    keywords: ["node-gyp", "native"],
  },
  {
    key: "npm-openssl",
    tool: "npm",
    error:
      "Error: error:0308010C:digital envelope routines::unsupported\n  opensslErrorStack: [ 'error:03000086:digital envelope routines::initialization error' ],\n  library: 'digital envelope routines', code: 'ERR_OSSL_EVP_UNSUPPORTED'",
    cause: "webpack 4 uses md4, which OpenSSL 3 in Node 17+ disables",
    fix: "upgrade to webpack 5 (or NODE_OPTIONS=--openssl-legacy-provider as a stopgap)",
    outcome: "resolved",
    keywords: ["openssl", "webpack"],
  },
  {
    key: "npm-heap",
    tool: "npm",
    error:
      "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n 1: 0xb7b3e0 node::Abort() [node]",
    cause: "the production build exceeds the default V8 heap",
    fix: "NODE_OPTIONS=--max-old-space-size=4096 npm run build",
    outcome: "resolved",
    keywords: ["heap", "memory"],
  },
  {
    key: "npm-eintegrity",
    tool: "npm",
    error:
      "npm ERR! code EINTEGRITY\nnpm ERR! sha512-Zq2Ezl9+Ab8cb1nBhn5JYkKfiXqhyFgMQCTqJbcw== integrity checksum failed when using sha512: wanted sha512-Zq2 but got sha512-a8B.",
    cause: "corrupted cache entry",
    fix: "npm cache clean --force, delete package-lock.json and node_modules, npm install",
    outcome: "resolved",
    keywords: ["cache", "integrity"],
  },
  // docker
  {
    key: "docker-sock-permission",
    tool: "docker",
    error:
      'permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.24/containers/json": dial unix /var/run/docker.sock: connect: permission denied',
    cause: "the user is not in the docker group",
    fix: "sudo usermod -aG docker $USER, then log out and back in (or newgrp docker)",
    outcome: "resolved",
    keywords: ["docker.sock", "group"],
  },
  {
    key: "docker-port-allocated",
    tool: "docker",
    error:
      "docker: Error response from daemon: driver failed programming external connectivity on endpoint web (4f1c2a): Bind for 0.0.0.0:8080 failed: port is already allocated.",
    cause: "another container already publishes 8080",
    fix: "docker ps to find it, stop it, or publish another host port (-p 8081:80)",
    outcome: "resolved",
    keywords: ["port", "bind"],
  },
  {
    key: "docker-no-space",
    tool: "docker",
    error: "failed to register layer: write /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1: no space left on device",
    cause: "old images and build cache filled the disk",
    fix: "docker system prune -a --volumes and docker builder prune",
    outcome: "resolved",
    keywords: ["disk", "prune"],
  },
  {
    key: "docker-platform",
    tool: "docker",
    error:
      "WARNING: The requested image's platform (linux/amd64) does not match the detected host platform (linux/arm64/v8) and no specific platform was requested\nexec /usr/local/bin/docker-entrypoint.sh: exec format error",
    cause: "an amd64-only image on an Apple silicon host",
    fix: "build a multi-arch image with docker buildx build --platform linux/amd64,linux/arm64",
    outcome: "resolved",
    keywords: ["arm64", "platform"],
  },
  {
    key: "docker-manifest-unknown",
    tool: "docker",
    error: "Error response from daemon: manifest for acme/api:2.4.1 not found: manifest unknown: manifest unknown",
    cause: "the tag was never pushed by CI",
    fix: "list the tags in the registry and use an existing one; re-run the release job to push 2.4.1",
    outcome: "resolved",
  },
  {
    key: "docker-copy-failed",
    tool: "docker",
    error: 'failed to solve: failed to compute cache key: failed to calculate checksum of ref 7b2c: "/dist": not found',
    cause: ".dockerignore excluded dist, or the build ran before npm run build",
    fix: "build inside a multi-stage Dockerfile (RUN npm run build) and COPY --from=build /app/dist",
    outcome: "resolved",
    keywords: ["dockerignore", "copy"],
  },
  {
    key: "docker-daemon-down",
    tool: "docker",
    error: "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?",
    fix: "sudo systemctl start docker (and enable it at boot)",
    outcome: "resolved",
    keywords: ["daemon"],
  },
  {
    key: "docker-oomkilled",
    tool: "docker",
    error: "container api exited with code 137 (OOMKilled: true)",
    cause: "the JVM heap was larger than the container memory limit",
    fix: "set -XX:MaxRAMPercentage=75 and raise the memory limit to 1g",
    outcome: "resolved",
    keywords: ["oom", "memory"],
  },
  // psql
  {
    key: "psql-refused",
    tool: "psql",
    error:
      'psql: error: connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?',
    cause: "postgres was not running after the reboot",
    fix: "sudo systemctl start postgresql (docker: docker start pg)",
    outcome: "resolved",
    keywords: ["connection refused"],
  },
  {
    key: "psql-password-auth",
    tool: "psql",
    error:
      'psql: error: connection to server at "db.internal" (10.0.3.7), port 5432 failed: FATAL:  password authentication failed for user "app"',
    cause: "the password was rotated and the env file was stale",
    fix: "fetch the new password from the vault into PGPASSWORD; check pg_hba.conf uses scram-sha-256",
    outcome: "resolved",
    keywords: ["authentication"],
  },
  {
    key: "psql-role-missing",
    tool: "psql",
    error:
      'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: FATAL:  role "dev" does not exist',
    fix: "sudo -u postgres createuser --interactive dev (or connect as postgres)",
    outcome: "resolved",
    keywords: ["role"],
  },
  {
    key: "psql-relation-missing",
    tool: "psql",
    error: 'ERROR:  relation "users" does not exist\nLINE 1: SELECT * FROM users WHERE id = 42;',
    cause: "migrations had not run on this database",
    fix: "run the migrations (npm run migrate) against the right database and schema",
    outcome: "resolved",
    keywords: ["migration", "table"],
  },
  {
    key: "psql-too-many-clients",
    tool: "psql",
    error: "FATAL:  sorry, too many clients already",
    cause: "each worker opened its own pool of 20",
    fix: "put pgbouncer in front and cap the app pool at 5 per worker",
    outcome: "resolved",
    keywords: ["max_connections", "pool"],
  },
  {
    key: "psql-unique-violation",
    tool: "psql",
    error:
      'ERROR:  duplicate key value violates unique constraint "users_email_key"\nDETAIL:  Key (email)=(a@b.c) already exists.',
    fix: "INSERT ... ON CONFLICT (email) DO UPDATE for the import",
    outcome: "resolved",
    keywords: ["upsert", "constraint"],
  },
  {
    key: "psql-deadlock",
    tool: "psql",
    error:
      "ERROR:  deadlock detected\nDETAIL:  Process 4242 waits for ShareLock on transaction 918; blocked by process 4243.",
    cause: "two jobs update the same rows in opposite orders",
    fix: "lock rows in a consistent order (ORDER BY id FOR UPDATE) and retry on 40P01",
    outcome: "resolved",
    keywords: ["deadlock", "locking"],
  },
  {
    key: "psql-permission-table",
    tool: "psql",
    error: "ERROR:  permission denied for table invoices",
    fix: "GRANT SELECT, INSERT, UPDATE ON invoices TO app; ALTER DEFAULT PRIVILEGES for new tables",
    outcome: "resolved",
    keywords: ["grant"],
  },
  // pytest
  {
    key: "pytest-module-not-found",
    tool: "pytest",
    error:
      "ImportError while importing test module '/repo/tests/test_api.py'.\nE   ModuleNotFoundError: No module named 'app'",
    cause: "the package is not installed and the repo root is not on sys.path",
    fix: "pip install -e . (or set pythonpath = . in pytest.ini)",
    outcome: "resolved",
    keywords: ["import", "sys.path"],
  },
  {
    key: "pytest-fixture-missing",
    tool: "pytest",
    error:
      "E       fixture 'db_session' not found\n>       available fixtures: cache, capfd, capsys, monkeypatch, tmp_path",
    cause: "the fixture lives in a conftest.py that pytest does not collect",
    fix: "move the fixture into tests/conftest.py",
    outcome: "resolved",
    keywords: ["fixture", "conftest"],
  },
  {
    key: "pytest-async",
    tool: "pytest",
    error: "PytestUnhandledCoroutineWarning: async def functions are not natively supported and have been skipped.",
    fix: "pip install pytest-asyncio and set asyncio_mode = auto",
    outcome: "resolved",
    keywords: ["asyncio"],
  },
  {
    key: "pytest-no-tests",
    tool: "pytest",
    error: "collected 0 items\n\n============================ no tests ran in 0.01s =============================",
    cause: "test files were named check_*.py",
    fix: "rename to test_*.py or set python_files in pytest.ini",
    outcome: "resolved",
    keywords: ["collection"],
  },
  {
    key: "pytest-float",
    tool: "pytest",
    error: "AssertionError: assert 0.30000000000000004 == 0.3",
    cause: "binary floating point",
    fix: "assert x == pytest.approx(0.3)",
    outcome: "resolved",
    keywords: ["approx", "float"],
  },
  {
    key: "pytest-scope-mismatch",
    tool: "pytest",
    error:
      "ScopeMismatch: You tried to access the function scoped fixture tmp_path with a session scoped request object",
    fix: "use tmp_path_factory in the session-scoped fixture",
    outcome: "resolved",
    keywords: ["fixture scope"],
  },
  {
    key: "pytest-flaky-timeout",
    tool: "pytest",
    error: "Failed: Timeout >30.0s in test_sync_large_batch",
    cause: "the external sandbox API is slow at times",
    fix: "tried raising the timeout to 120s and retries with pytest-rerunfailures; still flaky, gave up and marked it slow",
    outcome: "abandoned",
    keywords: ["timeout", "flaky"],
  },
  // curl
  {
    key: "curl-ssl-issuer",
    tool: "curl",
    error:
      "curl: (60) SSL certificate problem: unable to get local issuer certificate\nMore details here: https://curl.se/docs/sslcerts.html",
    cause: "the corporate proxy re-signs TLS with its own CA",
    fix: "add the proxy CA to the system store (update-ca-certificates) or pass --cacert corp-ca.pem; never -k",
    outcome: "resolved",
    keywords: ["tls", "certificate", "ca"],
  },
  {
    key: "curl-resolve-host",
    tool: "curl",
    error: "curl: (6) Could not resolve host: api.internal.acme",
    cause: "the VPN was down, so internal DNS was unreachable",
    fix: "reconnect the VPN (or use the public hostname)",
    outcome: "resolved",
    keywords: ["dns"],
  },
  {
    key: "curl-timeout",
    tool: "curl",
    error: "curl: (28) Failed to connect to 10.0.8.12 port 443 after 130012 ms: Connection timed out",
    cause: "the security group did not allow our egress IP",
    fix: "add the runner's egress IP to the security group",
    outcome: "resolved",
    keywords: ["firewall", "security group"],
  },
  {
    key: "curl-redirect",
    tool: "curl",
    error: "<html><head><title>301 Moved Permanently</title></head><body><h1>Moved Permanently</h1></body></html>",
    cause: "the endpoint moved from http to https and curl does not follow redirects",
    fix: "use https directly or add -L",
    outcome: "resolved",
    keywords: ["redirect"],
  },
  {
    key: "curl-401",
    tool: "curl",
    error: 'HTTP/2 401\n{"error":"invalid_token","error_description":"The access token expired"}',
    cause: "the cached OAuth token was older than one hour",
    fix: "refresh the token with the client-credentials grant before the call",
    outcome: "resolved",
    keywords: ["oauth", "expired token"],
  },
  {
    key: "curl-413",
    tool: "curl",
    error: "HTTP/1.1 413 Request Entity Too Large\nServer: nginx",
    cause: "nginx client_max_body_size is 1m",
    fix: "raise client_max_body_size to 50m in the ingress annotation",
    outcome: "resolved",
    keywords: ["upload", "nginx"],
  },
  {
    key: "curl-empty-reply",
    tool: "curl",
    error: "curl: (52) Empty reply from server",
    cause: "the app crashed on the request and the proxy closed the connection",
    fix: "check the server logs; the handler panicked on an empty body",
    outcome: "resolved",
  },
  // kubectl
  {
    key: "kubectl-imagepull",
    tool: "kubectl",
    error:
      'Failed to pull image "registry.acme.dev/api:2.4.1": rpc error: code = Unknown desc = failed to pull and unpack image: failed to resolve reference: pull access denied, repository does not exist or may require authorization\nWarning  Failed  ErrImagePull / ImagePullBackOff',
    cause: "the namespace had no imagePullSecret for the private registry",
    fix: "kubectl create secret docker-registry regcred ... and set imagePullSecrets on the service account",
    outcome: "resolved",
    keywords: ["imagepullbackoff", "registry"],
  },
  {
    key: "kubectl-crashloop",
    tool: "kubectl",
    error:
      "Back-off restarting failed container api in pod api-7d9f8b6c5-x2x7k_prod(6a1f0c2e-7b3d-4e5f-8a9b-0c1d2e3f4a5b)\nSTATUS: CrashLoopBackOff",
    cause: "DATABASE_URL was missing from the deployment's env",
    fix: "kubectl logs --previous showed the missing env; add it from the secret and roll out again",
    outcome: "resolved",
    keywords: ["crashloopbackoff"],
  },
  {
    key: "kubectl-forbidden",
    tool: "kubectl",
    error:
      'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:ci:deployer" cannot list resource "pods" in API group "" in the namespace "prod"',
    cause: "the CI service account had no Role in prod",
    fix: "add a Role with get/list/watch on pods and a RoleBinding for ci:deployer in prod",
    outcome: "resolved",
    keywords: ["rbac"],
  },
  {
    key: "kubectl-localhost-8080",
    tool: "kubectl",
    error: "The connection to the server localhost:8080 was refused - did you specify the right host or port?",
    cause: "KUBECONFIG was not set in the job, so kubectl used its default",
    fix: "export KUBECONFIG=/etc/ci/kubeconfig (or kubectl config use-context prod)",
    outcome: "resolved",
    keywords: ["kubeconfig", "context"],
  },
  {
    key: "kubectl-unschedulable",
    tool: "kubectl",
    error:
      "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
    cause: "requests of 2 CPUs per replica on 2-CPU nodes",
    fix: "lower the CPU request to 500m and let the cluster autoscaler add nodes",
    outcome: "resolved",
    keywords: ["pending", "resources"],
  },
  {
    key: "kubectl-unknown-field",
    tool: "kubectl",
    error:
      'error: error validating "deploy.yaml": error validating data: ValidationError(Deployment.spec.template.spec.containers[0]): unknown field "imagePullPolicyy" in io.k8s.api.core.v1.Container',
    fix: "fix the typo (imagePullPolicy) and validate with kubectl apply --dry-run=server",
    outcome: "resolved",
    keywords: ["yaml", "validation"],
  },
  {
    key: "kubectl-deadline",
    tool: "kubectl",
    error:
      "error: timed out waiting for the condition on deployments/api\nUnable to connect to the server: context deadline exceeded",
    cause: "the API server was unreachable from the office network",
    fix: "tried a longer --request-timeout and a new kubeconfig; the cluster API is private, gave up and ran it from the bastion",
    outcome: "abandoned",
    keywords: ["timeout"],
  },
  // ssh
  {
    key: "ssh-host-key-changed",
    tool: "ssh",
    error:
      "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.",
    cause: "the server was rebuilt with new host keys",
    fix: "confirm the new fingerprint out of band, then ssh-keygen -R host",
    outcome: "resolved",
    keywords: ["known_hosts"],
  },
  {
    key: "ssh-bad-permissions",
    tool: "ssh",
    error:
      "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n@         WARNING: UNPROTECTED PRIVATE KEY FILE!          @\nPermissions 0644 for '/home/dev/.ssh/id_rsa' are too open.",
    fix: "chmod 600 ~/.ssh/id_rsa",
    outcome: "resolved",
    keywords: ["chmod", "key file"],
  },
  // pip
  {
    key: "pip-externally-managed",
    tool: "pip",
    error:
      "error: externally-managed-environment\n× This environment is externally managed\n╰─> To install Python packages system-wide, try apt install python3-xyz",
    cause: "Debian 12 marks the system Python as managed (PEP 668)",
    fix: "python3 -m venv .venv && . .venv/bin/activate && pip install -r requirements.txt",
    outcome: "resolved",
    keywords: ["venv", "pep 668"],
  },
  {
    key: "pip-no-matching-dist",
    tool: "pip",
    error:
      "ERROR: Could not find a version that satisfies the requirement torch==2.1.0 (from versions: none)\nERROR: No matching distribution found for torch==2.1.0",
    cause: "no wheel for Python 3.13 yet",
    fix: "use Python 3.11 for this project (pyenv local 3.11)",
    outcome: "resolved",
    keywords: ["wheel", "python version"],
  },
  // cargo
  {
    key: "cargo-linker",
    tool: "cargo",
    error: "error: linker `cc` not found\n  |\n  = note: No such file or directory (os error 2)",
    fix: "apt-get install build-essential",
    outcome: "resolved",
    keywords: ["linker"],
  },
  {
    key: "cargo-borrow",
    tool: "cargo",
    error: "error[E0502]: cannot borrow `items` as mutable because it is also borrowed as immutable",
    fix: "collect the keys first, then mutate in a second loop",
    outcome: "resolved",
    keywords: ["borrow checker"],
  },
  // tsc
  {
    key: "tsc-ts2345",
    tool: "tsc",
    error:
      "src/app/user.ts(42,7): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
    fix: "parse the query parameter with Number() and validate it before the call",
    outcome: "resolved",
    keywords: ["types"],
  },
  {
    key: "tsc-cannot-find-module",
    tool: "tsc",
    error: "error TS2307: Cannot find module '@/lib/db' or its corresponding type declarations.",
    cause: "the path alias was not in tsconfig paths",
    fix: 'add "paths": { "@/*": ["src/*"] } with baseUrl to tsconfig.json',
    outcome: "resolved",
    keywords: ["paths", "alias"],
  },
  // terraform
  {
    key: "terraform-state-lock",
    tool: "terraform",
    error:
      "Error: Error acquiring the state lock\n\nError message: ConditionalCheckFailedException: The conditional request failed\nLock Info:\n  ID:        6f1d1a5e-5a0b-4c55-9b1e-1f0f1c2d3e4f",
    cause: "a cancelled CI run left the DynamoDB lock",
    fix: "confirm nothing runs, then terraform force-unlock 6f1d1a5e-5a0b-4c55-9b1e-1f0f1c2d3e4f",
    outcome: "resolved",
    keywords: ["state lock", "dynamodb"],
  },
  {
    key: "terraform-provider-checksum",
    tool: "terraform",
    error:
      "Error: Failed to install provider\n\nError while installing hashicorp/aws v5.31.0: the local package for registry.terraform.io/hashicorp/aws 5.31.0 doesn't match any of the checksums previously recorded in the dependency lock file",
    cause: "the lock file only had checksums for darwin_arm64",
    fix: "terraform providers lock -platform=linux_amd64 -platform=darwin_arm64 and commit .terraform.lock.hcl",
    outcome: "resolved",
    keywords: ["lock file", "checksum"],
  },
];

export interface Paraphrase {
  /** The same error seen again, worded differently. */
  query: string;
  tool: string;
  expect: string;
}

/** Sightings of recorded errors in other words: another version or locale of the tool, or a description. */
export const PARAPHRASES: Paraphrase[] = [
  {
    tool: "git",
    expect: "git-push-behind",
    query:
      "! [rejected] feature -> feature (non-fast-forward)\nhint: Updates were rejected because the tip of your current branch is behind its remote counterpart.",
  },
  {
    tool: "docker",
    expect: "docker-sock-permission",
    query: "Got permission denied connecting to /var/run/docker.sock when running docker ps",
  },
  {
    tool: "psql",
    expect: "psql-refused",
    query:
      'could not connect to server: Connection refused. Is the server running on host "localhost" and accepting TCP/IP connections on port 5432?',
  },
  {
    tool: "npm",
    expect: "npm-eacces-global",
    query: "npm install -g fails: EACCES permission denied writing to /usr/local/lib/node_modules",
  },
  {
    tool: "kubectl",
    expect: "kubectl-imagepull",
    query: "pod stuck in ImagePullBackOff, pull access denied for our private registry image",
  },
  {
    tool: "curl",
    expect: "curl-ssl-issuer",
    query: "curl cannot verify the server certificate: local issuer certificate could not be found",
  },
  { tool: "pytest", expect: "pytest-module-not-found", query: "tests fail at collection with No module named app" },
  {
    tool: "git",
    expect: "git-index-lock",
    query: "git says another git process seems to be running, index.lock already exists",
  },
  { tool: "docker", expect: "docker-no-space", query: "docker pull: write failed, the disk is full (no space left)" },
  { tool: "psql", expect: "psql-too-many-clients", query: "postgres refuses new connections: too many clients" },
  { tool: "npm", expect: "npm-heap", query: "node build crashes: JavaScript heap out of memory" },
  {
    tool: "kubectl",
    expect: "kubectl-localhost-8080",
    query: "kubectl get pods: connection to localhost:8080 refused",
  },
  {
    tool: "git",
    expect: "git-publickey",
    query: "ssh: the remote end hung up unexpectedly, github rejected my key (publickey)",
  },
  {
    tool: "docker",
    expect: "docker-port-allocated",
    query: "Error starting userland proxy: listen tcp4 0.0.0.0:3000: bind: address already in use",
  },
  {
    tool: "docker",
    expect: "docker-daemon-down",
    query: "error during connect: is the docker daemon running? could not reach the engine",
  },
  {
    tool: "psql",
    expect: "psql-relation-missing",
    query: 'ERROR: relation "public.orders" does not exist at character 15',
  },
  { tool: "psql", expect: "psql-password-auth", query: 'FATAL: password authentication failed for user "postgres"' },
  {
    tool: "pytest",
    expect: "pytest-async",
    query: "async test functions are skipped: coroutine was never awaited, you need a plugin for async tests",
  },
  { tool: "curl", expect: "curl-resolve-host", query: "curl: (6) Couldn't resolve host name" },
  {
    tool: "kubectl",
    expect: "kubectl-forbidden",
    query:
      "Error from server (Forbidden): deployments.apps is forbidden: User cannot patch resource in namespace staging",
  },
  {
    tool: "kubectl",
    expect: "kubectl-crashloop",
    query: "my pod keeps restarting over and over, status CrashLoopBackOff",
  },
  {
    tool: "npm",
    expect: "npm-eresolve",
    query: "npm error code ERESOLVE could not resolve: conflicting peer dependency react",
  },
  {
    tool: "pip",
    expect: "pip-externally-managed",
    query: "pip refuses to install: this Python environment is externally managed",
  },
];

/**
 * Descriptions that share few words with the record and rely on meaning. The builtin embedder (word
 * vectors + hashed n-grams) is no sentence model, so these are measured (bench/errors.ts), not asserted.
 */
export const HARD_PARAPHRASES: Paraphrase[] = [
  {
    tool: "git",
    expect: "git-push-behind",
    query: "my push to origin got refused because the remote branch has commits I don't have locally",
  },
  {
    tool: "docker",
    expect: "docker-oomkilled",
    query: "the container died, the kernel killed it for using too much RAM",
  },
  {
    tool: "psql",
    expect: "psql-deadlock",
    query: "two transactions were waiting on each other and postgres aborted one",
  },
  { tool: "curl", expect: "curl-413", query: "the upload was rejected by the proxy because the body is too big" },
  {
    tool: "kubectl",
    expect: "kubectl-unschedulable",
    query: "the new pods stay pending, the cluster has no node with enough processor capacity",
  },
  { tool: "pytest", expect: "pytest-float", query: "comparing two decimal numbers fails because of rounding" },
  {
    tool: "ssh",
    expect: "ssh-host-key-changed",
    query: "ssh warns that the server's fingerprint is different from the one it remembered",
  },
  {
    tool: "npm",
    expect: "npm-openssl",
    query: "the old webpack build breaks on newer node because of a crypto hashing algorithm",
  },
];
