// A second frozen paraphrase set, held out: 64 recorded errors over 16 tools, each with one sighting in
// other words. Written after the first set (paraphrase-set.ts) had been used for tuning, and committed
// before any further tuning, so that it measures the ranking on words it was never fitted to. It is
// searched among its own records plus the first set's records, without the first set's distractors that
// are the same error as one of this set's (SAME_AS_FIRST_SET). Frozen: never edit it
// to fit the ranking.
import { SET_DISTRACTORS, SET_RECORDS, type SetPair, type SetRecord } from "./paraphrase-set.ts";

type Row = [key: string, tool: string, error: string, fix: string, query: string];

const ROWS: Row[] = [
  // bash
  [
    "b2-crlf-shebang",
    "bash",
    "bash: ./deploy: /bin/bash^M: bad interpreter: No such file or directory",
    "dos2unix deploy",
    "the script was saved with windows line endings so its first line is broken",
  ],
  [
    "b2-unexpected-eof",
    "bash",
    "bash: deploy.sh: line 41: syntax error: unexpected end of file",
    "close the if block with fi",
    "the shell script is missing a closing keyword at the bottom",
  ],
  [
    "b2-readonly-fs",
    "bash",
    "bash: /tmp/build.log: Read-only file system",
    "write the log under /var/tmp; /tmp is mounted read-only in the container",
    "cannot save the log because the disk is mounted without write access",
  ],
  [
    "b2-killed",
    "bash",
    "bash: line 1:  4123 Killed                  python train.py",
    "the kernel's OOM killer stopped it; halve the batch size",
    "the training job was terminated by the kernel for using too much memory",
  ],
  // git
  [
    "g2-not-repo",
    "git",
    "fatal: not a git repository (or any of the parent directories): .git",
    "cd into the checkout, or git init",
    "I ran the version control command outside of the project folder",
  ],
  [
    "g2-overwritten",
    "git",
    "error: Your local changes to the following files would be overwritten by checkout:\n\tsrc/app.ts",
    "git stash, then checkout, then git stash pop",
    "switching branches is blocked because I have uncommitted edits",
  ],
  [
    "g2-large-file",
    "git",
    "remote: error: File assets/intro.mp4 is 142.00 MB; this exceeds GitHub's file size limit of 100.00 MB",
    "remove it from history and track it with git lfs",
    "the upload to the hosting site is rejected since one of the files is too big",
  ],
  [
    "g2-dubious",
    "git",
    "fatal: detected dubious ownership in repository at '/srv/app'",
    "git config --global --add safe.directory /srv/app",
    "git does not trust the folder because another user account owns it",
  ],
  // docker
  [
    "d2-manifest",
    "docker",
    "Error response from daemon: manifest for node:21-alpinee not found: manifest unknown",
    "fix the typo in the tag",
    "the base image version I wrote does not exist on the hub",
  ],
  [
    "d2-dockerignore",
    "docker",
    "COPY failed: file not found in build context or excluded by .dockerignore: stat package-lock.json: file does not exist",
    "remove package-lock.json from .dockerignore",
    "the build cannot copy a file because the ignore list leaves it out",
  ],
  [
    "d2-iptables",
    "docker",
    "Error response from daemon: driver failed programming external connectivity on endpoint web: iptables failed",
    "restart the docker service after the firewall reload",
    "after the firewall rules were reloaded, containers cannot publish their ports",
  ],
  [
    "d2-exec-missing",
    "docker",
    'docker: Error response from daemon: OCI runtime create failed: runc create failed: exec: "uvicorn": executable file not found in $PATH',
    "install uvicorn in the image or run python -m uvicorn",
    "the container start fails because the server program is missing from the image",
  ],
  // kubectl
  [
    "k2-path",
    "kubectl",
    'error: the path "k8s/deploy.yml" does not exist',
    "the file is k8s/deployment.yaml",
    "apply fails because I gave it a manifest file name that isn't there",
  ],
  [
    "k2-liveness",
    "kubectl",
    'Warning  Unhealthy  Liveness probe failed: Get "http://10.1.2.3:8080/healthz": dial tcp 10.1.2.3:8080: connect: connection refused',
    "raise initialDelaySeconds to 30",
    "the health check kills the pod before the app has finished booting",
  ],
  [
    "k2-quota",
    "kubectl",
    'Error from server (Forbidden): pods "api-0" is forbidden: exceeded quota: compute-quota, requested: limits.memory=2Gi, used: limits.memory=7Gi, limited: limits.memory=8Gi',
    "raise the namespace ResourceQuota or lower the pod's limits",
    "the namespace allowance for RAM is used up so the new pod is refused",
  ],
  [
    "k2-x509-expired",
    "kubectl",
    "Unable to connect to the server: x509: certificate has expired or is not yet valid",
    "kubeadm certs renew all, then copy the new admin.conf",
    "the cluster's TLS credentials ran out of date and the client will not talk to the API",
  ],
  // npm
  [
    "n2-enotfound",
    "npm",
    "npm ERR! code ENOTFOUND\nnpm ERR! network request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org",
    "set the proxy in .npmrc",
    "installing packages fails, the registry address cannot be reached from the office network",
  ],
  [
    "n2-missing-script",
    "npm",
    'npm ERR! Missing script: "start"',
    "add a start script to package.json",
    "there is no launch command defined in the project manifest",
  ],
  [
    "n2-eintegrity",
    "npm",
    "npm ERR! code EINTEGRITY\nnpm ERR! sha512-Zk3v... integrity checksum failed when using sha512",
    "npm cache clean --force and delete package-lock.json",
    "the downloaded package does not match the hash recorded in the lockfile",
  ],
  [
    "n2-ebadengine",
    "npm",
    "npm WARN EBADENGINE Unsupported engine { package: 'vite@5.0.0', required: { node: '^18.0.0 || >=20.0.0' }, current: { node: 'v16.20.0' } }",
    "nvm install 20",
    "the build tool needs a newer javascript runtime than the one on this machine",
  ],
  // pip
  [
    "p2-oserror-perm",
    "pip",
    "ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: '/usr/lib/python3/dist-packages/six.py'",
    "pip install --user, or use a venv",
    "installing a library fails because I can't write to the system python folder",
  ],
  [
    "p2-hashes",
    "pip",
    "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE.",
    "regenerate requirements with pip-compile --generate-hashes",
    "the checksums pinned in requirements.txt differ from the files downloaded",
  ],
  [
    "p2-read-timeout",
    "pip",
    "WARNING: Retrying (Retry(total=4, connect=None, read=None)) after connection broken by 'ReadTimeoutError(\"HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out.\")'",
    "pip install --default-timeout=100",
    "downloads from the python package index keep stalling and giving up",
  ],
  [
    "p2-distutils",
    "pip",
    "ERROR: Cannot uninstall 'PyYAML'. It is a distutils installed project and thus we cannot accurately determine which files belong to it",
    "pip install --ignore-installed PyYAML",
    "pip won't remove an old library that the operating system put there",
  ],
  // python
  [
    "y2-nonetype",
    "python",
    "TypeError: 'NoneType' object is not subscriptable",
    "check the function's return value before indexing it",
    "I index into a result that came back empty as null",
  ],
  [
    "y2-indent",
    "python",
    "IndentationError: unexpected indent",
    "re-indent the block with 4 spaces",
    "the file has a line pushed further right than the block expects",
  ],
  [
    "y2-zerodiv",
    "python",
    "ZeroDivisionError: division by zero",
    "return 0 when count is 0",
    "computing the average crashes when the list has no items",
  ],
  [
    "y2-json-empty",
    "python",
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    "the API returned an empty body; check the status before parsing",
    "parsing the response fails because the server sent back nothing",
  ],
  // node
  [
    "o2-eaddrinuse",
    "node",
    "Error: listen EADDRINUSE: address already in use :::3000",
    "kill the old dev server",
    "the dev server cannot start since another process holds the same port",
  ],
  [
    "o2-esm",
    "node",
    "SyntaxError: Cannot use import statement outside a module",
    'add "type": "module" to package.json',
    "node refuses the ES import syntax in my file",
  ],
  [
    "o2-redis-refused",
    "node",
    "Error: connect ECONNREFUSED 127.0.0.1:6379",
    "start redis",
    "the app can't reach the cache server on the local machine",
  ],
  [
    "o2-first-cert",
    "node",
    "TypeError: fetch failed\n  cause: Error: unable to verify the first certificate",
    "set NODE_EXTRA_CA_CERTS to the corporate CA bundle",
    "https calls fail because the company proxy's certificate is not trusted",
  ],
  // go
  [
    "go2-deadlock",
    "go",
    "fatal error: all goroutines are asleep - deadlock!",
    "close the channel, or receive in another goroutine",
    "the program hangs forever waiting on a channel nobody sends to",
  ],
  [
    "go2-index-range",
    "go",
    "panic: runtime error: index out of range [5] with length 5",
    "loop to len(items)-1",
    "the loop reads one element past the end of the slice",
  ],
  [
    "go2-type-mismatch",
    "go",
    "./main.go:14:22: cannot use id (variable of type int) as string value in argument to strings.ToUpper",
    "strconv.Itoa(id)",
    "the compiler complains I passed a number where text was expected",
  ],
  [
    "go2-toolchain",
    "go",
    "go: go.mod requires go >= 1.22 (running go 1.21.5; GOTOOLCHAIN=local)",
    "upgrade the go toolchain",
    "the module wants a newer compiler release than the one installed",
  ],
  // cargo
  [
    "c2-moved",
    "cargo",
    "error[E0382]: borrow of moved value: `config`",
    "clone it, or pass a reference",
    "I use the variable again after handing ownership to a function",
  ],
  [
    "c2-undeclared-crate",
    "cargo",
    "error[E0433]: failed to resolve: use of undeclared crate or module `serde_json`",
    "cargo add serde_json",
    "the library I reference is not listed among the project's dependencies",
  ],
  [
    "c2-unwrap-none",
    "cargo",
    "thread 'main' panicked at src/main.rs:14:30:\ncalled `Option::unwrap()` on a `None` value",
    "handle the None case with match",
    "the program aborts because it assumed a value was present but there was none",
  ],
  [
    "c2-rustc-old",
    "cargo",
    "error: package `tokio v1.35.0` cannot be built because it requires rustc 1.63 or newer, while the currently active rustc version is 1.60.0",
    "rustup update stable",
    "a dependency needs a more recent rust compiler than mine",
  ],
  // psql
  [
    "q2-unique",
    "psql",
    'ERROR:  duplicate key value violates unique constraint "users_email_key"',
    "upsert with ON CONFLICT (email) DO NOTHING",
    "inserting a user fails because that email is already stored",
  ],
  [
    "q2-table-perm",
    "psql",
    "ERROR:  permission denied for table orders",
    "GRANT SELECT ON orders TO reporting",
    "the reporting role is not allowed to read that table",
  ],
  [
    "q2-stmt-timeout",
    "psql",
    "ERROR:  canceling statement due to statement timeout",
    "add an index on orders(created_at)",
    "the query ran too long and the database aborted it",
  ],
  [
    "q2-no-db",
    "psql",
    'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: FATAL:  database "shop" does not exist',
    "createdb shop",
    "connecting fails since the named db was never created",
  ],
  // ssh
  [
    "s2-unreachable",
    "ssh",
    "ssh: connect to host git.acme.dev port 22: Network is unreachable",
    "connect through the VPN first",
    "I can't reach the server at all from home without the company tunnel",
  ],
  [
    "s2-agent-refused",
    "ssh",
    'sign_and_send_pubkey: signing failed for RSA "/home/dev/.ssh/id_rsa" from agent: agent refused operation',
    "chmod 600 the key, then ssh-add it again",
    "the key agent declines to use my key for logging in",
  ],
  [
    "s2-kex-reset",
    "ssh",
    "kex_exchange_identification: read: Connection reset by peer",
    "fail2ban on the server had banned my IP; unban it",
    "the remote machine drops me immediately, my address was blocked after failed attempts",
  ],
  [
    "s2-hostkey-type",
    "ssh",
    "Unable to negotiate with 10.0.0.9 port 22: no matching host key type found. Their offer: ssh-rsa",
    "add HostKeyAlgorithms +ssh-rsa for that host",
    "an old server only offers a legacy key algorithm that my client disabled",
  ],
  // terraform
  [
    "t2-invalid-ref",
    "terraform",
    "Error: Invalid reference\nA reference to a resource type must be followed by at least one attribute access, specifying the resource name.",
    "use aws_instance.web.id",
    "I referenced a resource without choosing which attribute",
  ],
  [
    "t2-no-creds",
    "terraform",
    "Error: error configuring Terraform AWS Provider: no valid credential sources for Terraform AWS Provider found.",
    "export AWS_PROFILE=acme",
    "the cloud plugin finds no login details to authenticate with",
  ],
  [
    "t2-backend-init",
    "terraform",
    'Error: Backend initialization required, please run "terraform init"',
    "terraform init -reconfigure",
    "the state storage settings changed and the working directory must be set up again",
  ],
  [
    "t2-unsupported-arg",
    "terraform",
    'Error: Unsupported argument\nAn argument named "enable_classiclink" is not expected here.',
    "remove the argument, dropped in provider v5",
    "after upgrading the provider, an old setting in my config is no longer accepted",
  ],
  // aws
  [
    "a2-no-bucket",
    "aws",
    "An error occurred (NoSuchBucket) when calling the ListObjectsV2 operation: The specified bucket does not exist",
    "fix the bucket name typo",
    "listing files fails because the storage container name is wrong",
  ],
  [
    "a2-unauthorized-ec2",
    "aws",
    "An error occurred (UnauthorizedOperation) when calling the RunInstances operation: You are not authorized to perform this operation.",
    "attach ec2:RunInstances to the role",
    "my role lacks the right to launch virtual machines",
  ],
  [
    "a2-lambda-region",
    "aws",
    "An error occurred (ResourceNotFoundException) when calling the Invoke operation: Function not found: arn:aws:lambda:eu-west-1:123456789012:function:resize",
    "deploy to eu-west-1 or pass --region",
    "calling the serverless function fails, it lives in another region",
  ],
  [
    "a2-vcpu-limit",
    "aws",
    "An error occurred (VcpuLimitExceeded) when calling the RunInstances operation: You have requested more vCPU capacity than your current vCPU limit of 32 allows",
    "request a quota increase",
    "launching servers fails because the account hit its processor allowance",
  ],
  // systemctl
  [
    "sd2-203-exec",
    "systemctl",
    "app.service: Main process exited, code=exited, status=203/EXEC",
    "ExecStart needs an absolute path",
    "the unit cannot launch its program because the start command path is wrong",
  ],
  [
    "sd2-namespace",
    "systemctl",
    "app.service: Failed to set up mount namespacing: /var/lib/app: No such file or directory",
    "create the ReadWritePaths directory",
    "the sandbox options point at a folder that isn't there, so the service won't start",
  ],
  [
    "sd2-start-timeout",
    "systemctl",
    "app.service: start operation timed out. Terminating.\napp.service: Failed with result 'timeout'.",
    "Type=notify was wrong for this program; use Type=simple",
    "the service is killed after a while because systemd never hears that it finished starting",
  ],
  [
    "sd2-oom",
    "systemctl",
    "app.service: A process of this unit has been killed by the OOM killer.\napp.service: Main process exited, code=killed, status=9/KILL",
    "raise MemoryMax to 1G",
    "the background job was shot down when RAM ran out",
  ],
  // curl
  [
    "u2-timeout",
    "curl",
    "curl: (28) Operation timed out after 30001 milliseconds with 0 bytes received",
    "open port 443 in the security group",
    "the request hangs and gives up with no data coming back",
  ],
  [
    "u2-ssl-syscall",
    "curl",
    "curl: (35) OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to api.acme.dev:443",
    "the load balancer listener was plain http only",
    "the encrypted handshake with the server breaks off right at the start",
  ],
  [
    "u2-empty-reply",
    "curl",
    "curl: (52) Empty reply from server",
    "the app crashed on that request; fixed the handler",
    "the server closes the connection without sending any answer",
  ],
  [
    "u2-recv-reset",
    "curl",
    "curl: (56) Recv failure: Connection reset by peer",
    "set HTTPS_PROXY for the office proxy",
    "the remote side hangs up in the middle of receiving the reply",
  ],
];

export const SET2_RECORDS: SetRecord[] = ROWS.map(([key, tool, error, fix]) => ({
  key,
  tool,
  error,
  fix,
  outcome: "resolved",
}));

/** Every pair of this set is held out: it is reported, never tuned on. */
export const SET2_PAIRS: SetPair[] = ROWS.map(([key, tool, , , query]) => ({
  expect: key,
  tool,
  query,
  split: "test",
}));

/**
 * The first set's distractors that record the same error as one of this set's targets (a text that
 * marks it): they are left out of this set's search, where they would tie with the target.
 */
const SAME_AS_FIRST_SET: Record<string, string> = {
  "u2-empty-reply": "curl: (52) Empty reply",
  "u2-recv-reset": "curl: (56) Recv failure",
  "u2-timeout": "curl: (28)",
  "u2-ssl-syscall": "curl: (35)",
  "y2-nonetype": "'NoneType' object is not subscriptable",
  "y2-json-empty": "JSONDecodeError: Expecting value",
  "y2-zerodiv": "ZeroDivisionError",
  "y2-indent": "IndentationError: unexpected indent",
  "g2-not-repo": "fatal: not a git repository",
  "g2-overwritten": "would be overwritten by checkout",
  "g2-dubious": "dubious ownership",
  "d2-manifest": "manifest unknown",
  "d2-dockerignore": ".dockerignore",
  "d2-exec-missing": '"uvicorn": executable file not found',
  "n2-missing-script": "Missing script",
  "n2-eintegrity": "EINTEGRITY",
  "p2-oserror-perm": "dist-packages/six.py",
  "p2-hashes": "DO NOT MATCH THE HASHES",
  "p2-read-timeout": "ReadTimeoutError",
  "go2-deadlock": "goroutines are asleep",
  "go2-index-range": "panic: runtime error: index out of range",
  "go2-type-mismatch": "(variable of type int) as string value",
  "c2-moved": "E0382",
  "c2-undeclared-crate": "E0433",
  "c2-unwrap-none": "Option::unwrap()` on a `None`",
  "c2-rustc-old": "requires rustc",
  "q2-unique": "duplicate key value",
  "q2-table-perm": "permission denied for table",
  "q2-stmt-timeout": "statement timeout",
  "q2-no-db": 'database "shop" does not exist',
  "s2-agent-refused": "agent refused operation",
  "s2-kex-reset": "kex_exchange_identification",
  "t2-invalid-ref": "Error: Invalid reference",
  "t2-no-creds": "No valid credential sources",
  "t2-backend-init": "Backend initialization required",
  "t2-unsupported-arg": "Unsupported argument",
  "a2-no-bucket": "NoSuchBucket",
  "a2-unauthorized-ec2": "UnauthorizedOperation",
  "a2-lambda-region": "Function not found",
};

/** What this set is searched among besides its own records: the first set without its duplicates. */
export const SET2_DISTRACTORS: SetRecord[] = [...SET_RECORDS, ...SET_DISTRACTORS].filter(
  (r) => !Object.values(SAME_AS_FIRST_SET).some((marker) => r.error.includes(marker)),
);
