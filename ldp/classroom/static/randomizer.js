/* The student's randomizer: the same function as ldp/classroom/randomizer.py (tests/classroom feeds both the same
 * bytes and compares the reports). It replays, call for call, the mechanisms' own client code for one user
 * (ldp.mechanisms: GRR, OUE, OLH with Carter–Wegman hashing, the Piecewise Mechanism) on a byte source:
 *   integer(low, high): 4 bytes little-endian u, rejected while u >= 2^32 - (2^32 mod span), low + u mod span;
 *   random(): 8 bytes as words lo, hi; ((hi >>> 11) * 2^32 + lo) / 2^53.
 * In the browser the bytes come from crypto.getRandomValues only (no Math.random anywhere). The answer never
 * leaves this code: randomize() returns the report, and only the report is sent. */
(function (root) {
  "use strict";
  var TWO32 = 4294967296;
  var TWO53 = 9007199254740992;

  function ByteSource(read) {
    this.read = read;
    this.consumed = 0;
  }
  ByteSource.prototype.u32 = function () {
    var b = this.read(4);
    this.consumed += 4;
    return (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0;
  };
  ByteSource.prototype.integer = function (low, high) {
    var span = high - low;
    if (!(span > 0 && span <= TWO32)) throw new Error("integer: span must lie in (0, 2^32]");
    var limit = TWO32 - (TWO32 % span);
    for (;;) {
      var u = this.u32();
      if (u < limit) return low + (u % span);
    }
  };
  ByteSource.prototype.random = function () {
    var lo = this.u32();
    var hi = this.u32();
    return ((hi >>> 11) * TWO32 + lo) / TWO53;
  };

  /* Bytes from the operating system's CSPRNG, fetched 4 KiB at a time. */
  function cryptoSource() {
    var cryptoObj = root.crypto;
    if (!cryptoObj || !cryptoObj.getRandomValues) throw new Error("this browser has no crypto.getRandomValues");
    var buf = new Uint8Array(4096);
    var pos = buf.length;
    return new ByteSource(function (n) {
      var out = new Uint8Array(n);
      for (var i = 0; i < n; i++) {
        if (pos >= buf.length) {
          cryptoObj.getRandomValues(buf);
          pos = 0;
        }
        out[i] = buf[pos++];
      }
      return out;
    });
  }

  /* A fixed byte array (tests): an error when it runs out. */
  function fixedSource(bytes) {
    var pos = 0;
    return new ByteSource(function (n) {
      if (pos + n > bytes.length) throw new Error("the random byte buffer ran out after " + pos + " bytes");
      var out = bytes.slice(pos, pos + n);
      pos += n;
      return out;
    });
  }

  /* ldp.core.randomness.bernoulli for `count` draws of probability p: byte B of a uint16 draw (low byte first),
   * 1 if B < floor(256 p), 0 if above, and on a tie 1 with probability 256 p - floor(256 p) (one random() per
   * tie, in index order, after all bytes). */
  function bernoulli(src, p, count) {
    var scaled = p * 256;
    var k = Math.floor(scaled);
    var frac = scaled - k;
    var out = new Array(count);
    var i;
    if (k >= 256 || (k === 0 && frac === 0)) {
      for (i = 0; i < count; i++) out[i] = k >= 256;
      return out;
    }
    var bytes = [];
    var words = Math.floor((count + 1) / 2);
    for (i = 0; i < words; i++) {
      var w = src.integer(0, 65536);
      bytes.push(w & 255, w >>> 8);
    }
    var ties = [];
    for (i = 0; i < count; i++) {
      out[i] = bytes[i] < k;
      if (frac > 0 && bytes[i] === k) ties.push(i);
    }
    for (i = 0; i < ties.length; i++) out[ties[i]] = src.random() < frac;
    return out;
  }

  /* GRR (IBU paper Eq. (4)): keep with probability p, else shift by a uniform 1..k-1. */
  function grr(src, v, p, k) {
    var keep = bernoulli(src, p, 1)[0];
    var shift = k > 1 ? src.integer(1, k) : 0;
    return keep ? v : (v + shift) % k;
  }

  function unitValue(x, lo, hi) {
    return Math.min(1, Math.max(-1, (2 * (x - lo)) / (hi - lo) - 1));
  }

  /* One report for the answer (a label index, or a number for "pm"), in the API's one-line encoding. */
  function randomize(mechanism, params, answer, src) {
    if (mechanism === "grr") return String(grr(src, answer, params.p, params.d));
    if (mechanism === "oue") {
      var bits = bernoulli(src, params.q, params.d);
      bits[answer] = bernoulli(src, params.p, 1)[0];
      return bits.map(function (b) { return b ? "1" : "0"; }).join("");
    }
    if (mechanism === "olh") {
      var P = params.prime;
      var a = src.integer(1, P);
      var b = src.integer(0, P);
      var h = ((a * answer + b) % P) % params.g;
      return a + " " + b + " " + grr(src, h, params.keep, params.g);
    }
    if (mechanism === "pm") {
      var v = unitValue(answer, params.lo, params.hi);
      var t = params.t;
      var s = params.s;
      var left = (t * v - 1) / (t - 1);
      var right = (t * v + 1) / (t - 1);
      var center = src.random() < params.center_probability;
      var u = src.random();
      var leftLen = left + s;
      var outLen = leftLen + (s - right);
      var pos = u * outLen;
      var outside = pos < leftLen ? -s + pos : right + (pos - leftLen);
      var out = center ? left + u * (right - left) : outside;
      /* snapped to the grid k·step, |k| ≤ k_max, as the Python client does (ties to even, like numpy.rint) */
      var x = out / params.step;
      var k = Math.floor(x);
      var frac = x - k;
      if (frac > 0.5 || (frac === 0.5 && k % 2 !== 0)) k += 1;
      k = Math.min(params.k_max, Math.max(-params.k_max, k));
      return String(k * params.step + 0);
    }
    throw new Error("unknown mechanism " + mechanism);
  }

  /* Which answers a report supports (for the explanation the page shows). */
  function supported(mechanism, params, report) {
    var out = [];
    var v;
    if (mechanism === "grr") return [Number(report)];
    if (mechanism === "oue") {
      for (v = 0; v < report.length; v++) if (report[v] === "1") out.push(v);
      return out;
    }
    if (mechanism === "olh") {
      var f = report.split(" ").map(Number);
      for (v = 0; v < params.d; v++) if (((f[0] * v + f[1]) % params.prime) % params.g === f[2]) out.push(v);
      return out;
    }
    return out;
  }

  /* A nonce of 16 random bytes, base64url. */
  function nonce(src) {
    var chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    var s = "";
    for (var i = 0; i < 22; i++) s += chars[src.integer(0, 64)];
    return s;
  }

  var api = { ByteSource: ByteSource, cryptoSource: cryptoSource, fixedSource: fixedSource, bernoulli: bernoulli,
              randomize: randomize, supported: supported, nonce: nonce, unitValue: unitValue };
  root.LDPRandomizer = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
