// Standard error codes in words: errno names (their C library messages), POSIX signals, shell exit
// statuses and HTTP statuses, so that "ENOSPC" meets "the disk is full" and "exit code 137" meets "killed".
// Standard tables (errno.h / strerror, signal.h, RFC 9110), not the vocabulary of any record.
const ERRNO: Record<string, string> = {
  eperm: "operation not permitted",
  enoent: "no such file or directory",
  esrch: "no such process",
  eintr: "interrupted system call",
  eio: "input output error",
  enxio: "no such device or address",
  e2big: "argument list too long",
  enoexec: "exec format error",
  ebadf: "bad file descriptor",
  echild: "no child processes",
  eagain: "resource temporarily unavailable",
  ewouldblock: "resource temporarily unavailable",
  enomem: "cannot allocate memory",
  eacces: "permission denied",
  efault: "bad address",
  ebusy: "device or resource busy",
  eexist: "file exists",
  exdev: "invalid cross device link",
  enodev: "no such device",
  enotdir: "not a directory",
  eisdir: "is a directory",
  einval: "invalid argument",
  enfile: "too many open files in system",
  emfile: "too many open files",
  etxtbsy: "text file busy",
  efbig: "file too large",
  enospc: "no space left on device",
  espipe: "illegal seek",
  erofs: "read only file system",
  emlink: "too many links",
  epipe: "broken pipe",
  erange: "numerical result out of range",
  edeadlk: "resource deadlock avoided",
  enametoolong: "file name too long",
  enolck: "no locks available",
  enosys: "function not implemented",
  enotempty: "directory not empty",
  eloop: "too many levels of symbolic links",
  enotsock: "socket operation on non socket",
  eaddrinuse: "address already in use",
  eaddrnotavail: "cannot assign requested address",
  enetdown: "network is down",
  enetunreach: "network is unreachable",
  econnaborted: "software caused connection abort",
  econnreset: "connection reset by peer",
  enobufs: "no buffer space available",
  enotconn: "transport endpoint is not connected",
  etimedout: "connection timed out",
  econnrefused: "connection refused",
  ehostdown: "host is down",
  ehostunreach: "no route to host",
  ealready: "operation already in progress",
  edquot: "disk quota exceeded",
  ecanceled: "operation canceled",
  eoverflow: "value too large for defined data type",
  enotsup: "operation not supported",
  eopnotsupp: "operation not supported",
  eproto: "protocol error",
  // getaddrinfo, as Node.js names its failures.
  enotfound: "host name not found by dns lookup",
  eai_again: "temporary failure in name resolution",
};

const SIGNALS: Record<string, string> = {
  sighup: "hangup",
  sigint: "interrupted",
  sigquit: "quit",
  sigill: "illegal instruction",
  sigabrt: "aborted",
  sigbus: "bus error",
  sigfpe: "floating point exception",
  sigkill: "killed",
  sigsegv: "segmentation fault invalid memory access",
  sigpipe: "broken pipe",
  sigalrm: "alarm clock",
  sigterm: "terminated",
};

/** Exit statuses with a standard meaning (shell conventions, 128 + signal number). */
const EXIT_STATUSES: Record<string, string> = {
  "126": "command cannot execute",
  "127": "command not found",
  "130": "interrupted",
  "134": "aborted",
  "137": "killed",
  "139": "segmentation fault",
  "143": "terminated",
};

const HTTP_STATUSES: Record<string, string> = {
  "400": "bad request",
  "401": "unauthorized",
  "403": "forbidden",
  "404": "not found",
  "405": "method not allowed",
  "407": "proxy authentication required",
  "408": "request timeout",
  "409": "conflict",
  "410": "gone",
  "411": "length required",
  "412": "precondition failed",
  "413": "payload too large",
  "414": "uri too long",
  "415": "unsupported media type",
  "422": "unprocessable content",
  "429": "too many requests",
  "500": "internal server error",
  "501": "not implemented",
  "502": "bad gateway",
  "503": "service unavailable",
  "504": "gateway timeout",
};

const NAMED = /\b(E[A-Z0-9_]{2,14}|SIG[A-Z]{3,5})\b/g;
/** A number that follows a word saying it is a status: "exit code 137", "Error 127", "HTTP 503", "status=143". */
const STATUS =
  /\b(exit(?:ed)?(?: with)?(?: code| status)?|status(?: code)?|code|error|returned|http(?:\/[\d.]+)?|response)[\s:=(]*(\d{3})\b/gi;

/** `text` with the meaning of each standard error code it shows written after it. */
export function describeErrorCodes(text: string): string {
  return text
    .replace(NAMED, (m: string) => {
      const k = m.toLowerCase();
      const words = ERRNO[k] ?? SIGNALS[k];
      return words ? `${m} (${words})` : m;
    })
    .replace(STATUS, (m: string, _w: string, n: string) => {
      const words = EXIT_STATUSES[n] ?? HTTP_STATUSES[n];
      return words ? `${m} (${words})` : m;
    });
}
