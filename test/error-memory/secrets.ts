// One example of each secret form error memory must redact, with its secret parts and words that must stay.
export interface SecretCase {
  name: string;
  text: string;
  /** Substrings that must appear nowhere once stored (the secret, and its distinctive body). */
  secretParts: string[];
  /** Words of the surrounding text that must survive. */
  keep: string[];
  /** How the secret would appear as a keyword, when it fits one (at most 64 characters, one line). */
  keyword?: string;
}

const alnum = (n: number, seed: number) => {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let s = "";
  for (let i = 0; i < n; i++) s += chars[(i * 7 + seed * 13 + ((i * i) % 11)) % chars.length];
  return s;
};

const openai = `sk-proj-${alnum(40, 1)}`;
const anthropic = `sk-ant-api03-${alnum(40, 2)}-${alnum(20, 3)}AA`;
const ghp = `ghp_${alnum(36, 4)}`;
const ghPat = `github_pat_11${alnum(20, 5)}_${alnum(59, 6)}`;
const slackBot = `xoxb-${"2210987654321"}-${"1234567890123"}-${alnum(24, 7)}`;
const slackUser = `xoxp-${"2210987654321"}-${"2210987654322"}-${alnum(32, 8)}`;
const aws = "AKIAQ3EGRIWXYZ7QK2LM";
const google = `AIza${alnum(35, 9)}`;
const gitlab = `glpat-${alnum(20, 10)}`;
const npm = `npm_${alnum(36, 11)}`;
const stripeSk = `sk_live_${alnum(32, 12)}`;
const stripeRk = `rk_live_${alnum(32, 13)}`;
const jwt = `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwiaWF0IjoxNzAwMDAwMDAwfQ.${alnum(43, 14)}`;
const bearer = `${alnum(12, 15)}.${alnum(30, 16)}`;
const urlPassword = `Tr0ub4dor${alnum(8, 17)}`;
const keyBody = `MIIEowIBAAKCAQEA${alnum(48, 18)}`;
const groq = `gsk_${alnum(52, 20)}`;
const xai = `xai-${alnum(80, 21)}`;
const voyage = `pa-${alnum(43, 22)}`;
const replicate = `r8_${alnum(37, 23)}`;
const digitalOcean = `dop_v1_${alnum(64, 24).toLowerCase()}`;
const perplexity = `pplx-${alnum(48, 25)}`;
const azureKey = `${alnum(60, 26)}+/${alnum(24, 27)}==`;
const dbPass = `Xk9#${alnum(10, 28)}`;
const encryptionKey = alnum(32, 29).toLowerCase();
const keyBase = alnum(40, 30);
const slackHook = `T024BE7LD/B01ABCDEF/${alnum(24, 31)}`;
const discordHook = `112233445566778899/${alnum(68, 32)}`;
const curlPassword = `S3cret${alnum(8, 33)}`;
const mysqlPassword = `My${alnum(10, 34)}`;
const loginPassword = `Reg${alnum(12, 35)}`;
const sasSig = `${alnum(30, 36)}%2B${alnum(10, 37)}%3D`;
const s3Sig = alnum(64, 38).toLowerCase();
const sessionCookie = alnum(32, 39).toLowerCase();
const hex = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => "0123456789abcdef"[(i * 5 + seed * 7 + ((i * i) % 13)) % 16]).join("");
const shopify = `shpat_${hex(32, 40)}`;
const atlassian = `ATATT3x${alnum(60, 41)}=${alnum(8, 42).toUpperCase()}`;
const linear = `lin_api_${alnum(40, 43)}`;
const notion = `ntn_${alnum(46, 44)}`;
const databricks = `dapi${hex(32, 45)}`;
const heroku = `HRKU-${alnum(40, 46)}`;
const mailgun = `key-${hex(32, 47)}`;
const refreshToken = `1//0${alnum(60, 48)}`;
const npmAuth = Buffer.from(`ci:${alnum(12, 49)}`).toString("base64");

export const SECRETS: SecretCase[] = [
  {
    name: "OpenAI key (sk-…)",
    text: `openai.AuthenticationError: Incorrect API key provided: ${openai}`,
    secretParts: [openai, openai.slice(8)],
    keep: ["AuthenticationError", "Incorrect API key provided"],
  },
  {
    name: "Anthropic key (sk-ant-…)",
    text: `export ANTHROPIC_KEY=${anthropic} && claude-run`,
    secretParts: [anthropic, anthropic.slice(13)],
    keep: ["export", "claude-run"],
  },
  {
    name: "GitHub token (ghp_)",
    text: `remote: Invalid username or token ${ghp}. Password authentication is not supported`,
    secretParts: [ghp, ghp.slice(4)],
    keep: ["Invalid username", "Password authentication is not supported"],
  },
  {
    name: "GitHub fine-grained token (github_pat_)",
    text: `gh auth login --with-token ${ghPat} failed: HTTP 401`,
    secretParts: [ghPat, ghPat.slice(13)],
    keep: ["gh auth login", "HTTP 401"],
  },
  {
    name: "Slack bot token (xoxb-)",
    text: `slack_sdk.errors.SlackApiError: invalid_auth for ${slackBot}`,
    secretParts: [slackBot, slackBot.slice(33)],
    keep: ["SlackApiError", "invalid_auth"],
  },
  {
    name: "Slack user token (xoxp-)",
    text: `curl https://slack.com/api/chat.postMessage?token=${slackUser} -> not_authed`,
    secretParts: [slackUser, slackUser.slice(33)],
    keep: ["chat.postMessage", "not_authed"],
  },
  {
    name: "AWS access key id (AKIA…)",
    text: `An error occurred (InvalidClientTokenId): The security token included in the request is invalid. key ${aws}`,
    secretParts: [aws, aws.slice(4)],
    keep: ["InvalidClientTokenId", "security token"],
  },
  {
    name: "Google API key (AIza…)",
    text: `googleapiclient.errors.HttpError: 403 API key not valid: ${google}`,
    secretParts: [google, google.slice(4)],
    keep: ["HttpError", "API key not valid"],
  },
  {
    name: "GitLab token (glpat-)",
    text: `git clone https://gitlab.com/acme/app.git failed, PRIVATE-TOKEN ${gitlab} revoked`,
    secretParts: [gitlab, gitlab.slice(6)],
    keep: ["git clone", "revoked"],
  },
  {
    name: "npm token (npm_)",
    text: `npm ERR! 401 Unauthorized - //registry.npmjs.org/:_authToken=${npm}`,
    secretParts: [npm, npm.slice(4)],
    keep: ["npm ERR!", "401 Unauthorized"],
  },
  {
    name: "Stripe secret key (sk_live_)",
    text: `stripe.error.AuthenticationError: Invalid API Key provided: ${stripeSk}`,
    secretParts: [stripeSk, stripeSk.slice(8)],
    keep: ["AuthenticationError", "Invalid API Key provided"],
  },
  {
    name: "Stripe restricted key (rk_live_)",
    text: `Request req_123 used ${stripeRk} which lacks the charges:write permission`,
    secretParts: [stripeRk, stripeRk.slice(8)],
    keep: ["charges:write permission"],
  },
  {
    name: "JWT",
    text: `jwt.exceptions.ExpiredSignatureError: Signature has expired for ${jwt}`,
    secretParts: [jwt, jwt.split(".")[2]!, jwt.split(".")[1]!],
    keep: ["ExpiredSignatureError", "Signature has expired"],
  },
  {
    name: "Bearer header",
    text: `curl -H "Authorization: Bearer ${bearer}" https://api.acme.dev/v2/users -> 401`,
    secretParts: [bearer, bearer.slice(13)],
    keep: ["curl", "https://api.acme.dev/v2/users"],
    keyword: `Bearer ${bearer}`,
  },
  {
    name: "password in a URL",
    text: `psql: error: connection to "postgresql://app:${urlPassword}@db.internal:5432/app" failed: timeout`,
    secretParts: [urlPassword],
    keep: ["postgresql://app:", "@db.internal:5432/app", "timeout"],
    keyword: `postgres://app:${urlPassword}@db`,
  },
  {
    name: "private key block",
    text: `Load key "deploy.pem": invalid format\n-----BEGIN RSA PRIVATE KEY-----\n${keyBody}\n${alnum(64, 19)}\n-----END RSA PRIVATE KEY-----\nend of key`,
    secretParts: [keyBody, alnum(64, 19)],
    keep: ["invalid format", "end of key"],
    keyword: "",
  },
  {
    name: "Groq key (gsk_)",
    text: `groq.AuthenticationError: Invalid API Key ${groq} (401)`,
    secretParts: [groq, groq.slice(4)],
    keep: ["groq.AuthenticationError", "Invalid API Key"],
  },
  {
    name: "xAI key (xai-)",
    text: `POST https://api.x.ai/v1/chat/completions failed: incorrect API key ${xai}`,
    secretParts: [xai, xai.slice(4)],
    keep: ["https://api.x.ai/v1/chat/completions", "incorrect API key"],
  },
  {
    name: "Voyage key (pa-)",
    text: `voyageai.error.AuthenticationError: the key ${voyage} is not valid`,
    secretParts: [voyage, voyage.slice(3)],
    keep: ["voyageai.error.AuthenticationError", "is not valid"],
  },
  {
    name: "Replicate token (r8_)",
    text: `replicate.exceptions.ReplicateError: token ${replicate} is invalid or expired`,
    secretParts: [replicate, replicate.slice(3)],
    keep: ["ReplicateError", "invalid or expired"],
  },
  {
    name: "DigitalOcean token (dop_v1_)",
    text: `doctl auth init: unable to use token ${digitalOcean}: 401 Unable to authenticate you`,
    secretParts: [digitalOcean, digitalOcean.slice(7)],
    keep: ["doctl auth init", "Unable to authenticate you"],
  },
  {
    name: "Perplexity key (pplx-)",
    text: `perplexity: 401 Unauthorized for key ${perplexity}`,
    secretParts: [perplexity, perplexity.slice(5)],
    keep: ["401 Unauthorized"],
  },
  {
    name: "Azure storage connection string (AccountKey=)",
    text: `azure.core.exceptions.ClientAuthenticationError with DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey=${azureKey};EndpointSuffix=core.windows.net`,
    secretParts: [azureKey, azureKey.slice(0, 40)],
    keep: ["ClientAuthenticationError", "AccountName=shopdata", "EndpointSuffix=core.windows.net"],
    keyword: `AccountKey=${azureKey.slice(0, 40)}`,
  },
  {
    name: ".env lines (DB_PASS, ENCRYPTION_KEY, SECRET_KEY_BASE)",
    text: `app failed to boot with this .env:\nDB_PASS=${dbPass}\nexport ENCRYPTION_KEY=${encryptionKey}\nSECRET_KEY_BASE="${keyBase}"\nPORT=3000`,
    secretParts: [dbPass, encryptionKey, keyBase],
    keep: ["app failed to boot", "DB_PASS=", "ENCRYPTION_KEY=", "PORT=3000"],
    keyword: `DB_PASS=${dbPass}`,
  },
  {
    name: "ODBC connection string (Pwd=)",
    text: `[Microsoft][ODBC Driver 18 for SQL Server]Login failed: Server=db.internal;Uid=sa;Pwd=${dbPass};Encrypt=yes`,
    secretParts: [dbPass],
    keep: ["Login failed", "Uid=sa", "Encrypt=yes"],
    keyword: "",
  },
  {
    name: "Slack incoming webhook URL",
    text: `curl: (22) The requested URL returned error: 404 for https://hooks.slack.com/services/${slackHook}`,
    secretParts: [slackHook, slackHook.slice(20)],
    keep: ["returned error: 404", "https://hooks.slack.com/services/"],
    keyword: "",
  },
  {
    name: "Discord webhook URL",
    text: `POST https://discord.com/api/webhooks/${discordHook} failed: 429 Too Many Requests`,
    secretParts: [discordHook, discordHook.slice(19)],
    keep: ["429 Too Many Requests", "https://discord.com/api/webhooks/"],
    keyword: "",
  },
  {
    name: "curl -u user:password",
    text: `command failed: curl -u deploy:${curlPassword} https://artifacts.example.com/upload (exit 22)`,
    secretParts: [curlPassword],
    keep: ["command failed", "curl -u deploy:", "(exit 22)"],
    keyword: "",
  },
  {
    name: "mysql -pPASSWORD",
    text: `$ mysql -h db.internal -u root -p${mysqlPassword} app < dump.sql\nERROR 2003 (HY000): Can't connect to MySQL server`,
    secretParts: [mysqlPassword],
    keep: ["mysql -h db.internal -u root -p", "Can't connect to MySQL server"],
    keyword: "",
  },
  {
    name: "Azure SAS signature (sig=)",
    text: `AuthenticationFailed: GET https://acct.blob.core.windows.net/logs/app.log?sv=2021-08-06&sr=b&sp=r&sig=${sasSig} (403)`,
    secretParts: [sasSig, sasSig.slice(0, 30)],
    keep: ["AuthenticationFailed", "acct.blob.core.windows.net/logs/app.log?sv=2021-08-06", "(403)"],
    keyword: "",
  },
  {
    name: "S3 presigned URL (X-Amz-Signature=)",
    text: `SignatureDoesNotMatch for https://b.s3.amazonaws.com/k?X-Amz-Expires=300&X-Amz-Signature=${s3Sig}&X-Amz-SignedHeaders=host`,
    secretParts: [s3Sig],
    keep: ["SignatureDoesNotMatch", "X-Amz-Expires=300", "X-Amz-SignedHeaders=host"],
    keyword: "",
  },
  {
    name: "Cookie header",
    text: `> Cookie: theme=dark; sessionid=${sessionCookie}\n< HTTP/1.1 403 Forbidden`,
    secretParts: [sessionCookie],
    keep: ["> Cookie: theme=", "sessionid=", "HTTP/1.1 403 Forbidden"],
    keyword: "",
  },
  {
    name: "Shopify, Atlassian, Linear, Notion, Databricks, Heroku and Mailgun tokens",
    text: `401 from shopify (${shopify}), jira (${atlassian}), linear (${linear}), notion (${notion}), databricks (${databricks}), heroku (${heroku}), mailgun (${mailgun})`,
    secretParts: [shopify, atlassian, linear, notion, databricks, heroku, mailgun, atlassian.slice(7, 40)],
    keep: ["401 from shopify (", "jira (", "linear (", "notion (", "databricks (", "heroku (", "mailgun ("],
    keyword: "",
  },
  {
    name: "Google OAuth refresh token (1//0…)",
    text: `ERROR: (gcloud.auth) There was a problem refreshing your current auth tokens: invalid_grant for ${refreshToken}`,
    secretParts: [refreshToken, refreshToken.slice(4)],
    keep: ["gcloud.auth", "invalid_grant"],
    keyword: "",
  },
  {
    name: ".npmrc _auth",
    text: `npm ERR! code E401 Unable to authenticate, your .npmrc has //npm.acme.dev/:_auth=${npmAuth} and always-auth=true`,
    secretParts: [npmAuth],
    keep: ["npm ERR! code E401", "always-auth=true"],
    keyword: "",
  },
  {
    name: "docker login -p PASSWORD",
    text: `docker login -u ci -p ${loginPassword} registry.acme.dev: Error response from daemon: Get "https://registry.acme.dev/v2/": unauthorized`,
    secretParts: [loginPassword],
    keep: ["docker login -u ci -p", "registry.acme.dev", "unauthorized"],
    keyword: "",
  },
];
