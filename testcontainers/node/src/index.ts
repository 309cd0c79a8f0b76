/**
 * A testcontainers module for minisqs, an Amazon SQS emulator.
 *
 * ```ts
 * const minisqs = await new MinisqsContainer("minisqs/minisqs:latest")
 *   .withQueues("orders", "events.fifo")
 *   .start();
 * const client = minisqs.getClient();
 * const url = await minisqs.getQueueUrl("orders");
 * await minisqs.advance(60); // a minute passes for every time rule, at once
 * await minisqs.stop();
 * ```
 *
 * The started container hands back an SQS client configured for it, and
 * helpers over the server's test-control API (under `/_minisqs/` on the same
 * port): reset, the clock, fault rules, state, wait and the request journal.
 */
import { GetQueueUrlCommand, SQSClient, type SQSClientConfig } from "@aws-sdk/client-sqs";
import { AbstractStartedContainer, GenericContainer, Wait, type StartedTestContainer } from "testcontainers";

/** The image's usual name. */
export const DEFAULT_IMAGE = "minisqs/minisqs:latest";
/** The port minisqs listens on inside the container. */
export const PORT = 9324;
/**
 * The region the client names. minisqs puts its own region (us-east-1
 * unless MINISQS_REGION says otherwise) in ARNs and checks no signature.
 */
export const REGION = "us-east-1";

/** The server answers /health within milliseconds; the rest is Docker's. */
const STARTUP_TIMEOUT_MS = 60_000;
const CONTROL_PATH = "/_minisqs";

/**
 * A fault rule: which requests it hits (`action`, and `queue` if set) and
 * its one effect (`error`, `latencyMs` or `drop`).
 */
export interface Fault {
  /** An SQS action such as "SendMessage", a REST operation name, or "*". */
  action: string;
  /** Limits the rule to requests for this queue. */
  queue?: string;
  /**
   * An error code to answer with, such as "ServiceUnavailable",
   * "ThrottlingException" or "QueueDoesNotExist", shaped as AWS shapes it
   * so that the SDK classifies and retries it as it would against AWS.
   */
  error?: string;
  /** Delays matching requests by this many milliseconds. */
  latencyMs?: number;
  /** Closes the connection without an answer. */
  drop?: boolean;
  /** The chance, 0 to 1, that a matching request is hit; default 1. */
  probability?: number;
  /** How many requests the rule hits at most; default no limit. */
  count?: number;
}

/** A fault rule as the server keeps it. */
export interface FaultRule extends Fault {
  /** Names the rule for deleteFault. */
  id: string;
  /** How many requests the rule has hit so far. */
  hits: number;
}

/** The server's clock, which every time rule reads. */
export interface Clock {
  now: Date;
  /** How far advance has moved the clock ahead of the real one. */
  offsetSeconds: number;
}

/** A queue's messages by state. */
export interface Counts {
  visible: number;
  inFlight: number;
  delayed: number;
}

/** What wait waits for on one queue: set one of the conditions. */
export interface WaitCondition {
  queue: string;
  /** Bounds the wait on the server; default the server's. */
  timeoutSeconds?: number;
  /** At least this many visible messages. */
  visible?: number;
  /** At least this many messages in flight. */
  inFlight?: number;
  /** Nothing visible, in flight or delayed. */
  empty?: boolean;
  /** A visible or in-flight message whose body contains this text. */
  bodyContains?: string;
}

/** One request the server served, from its journal. */
export interface RequestRecord {
  /** When it arrived, on the server's clock. */
  time: Date;
  protocol: "query" | "json" | "rest";
  action: string;
  queue?: string;
  /** The HTTP status answered; 0 when a fault dropped the connection. */
  status: number;
  errorCode?: string;
  durationMs: number;
  /** The fault rule that hit the request, if one did. */
  faultId?: string;
}

/** The server's whole state, as saveState returns it and loadState takes it. */
export interface MinisqsState {
  version: number;
  [key: string]: unknown;
}

/**
 * An error answered by the control API, `{"error": {"code", "message"}}`.
 * An answer in another shape leaves `code` empty and puts the start of the
 * body in the message.
 */
export class MinisqsApiError extends Error {
  override name = "MinisqsApiError";
  constructor(
    /** The answer's HTTP status. */
    readonly status: number,
    /** The API's error code, such as "queue_not_found". */
    readonly code: string,
    message: string,
  ) {
    super(code ? `minisqs control API: ${code} (HTTP ${status}): ${message}` : `minisqs control API: HTTP ${status}: ${message}`);
  }
}

/** wait's error when the condition did not hold within the timeout. */
export class WaitTimeoutError extends Error {
  override name = "WaitTimeoutError";
  constructor(
    readonly condition: WaitCondition,
    /** The queue's counts at the timeout. */
    readonly counts: Counts,
  ) {
    super(
      `minisqs: wait on queue ${condition.queue} timed out with ${counts.visible} visible, ` +
        `${counts.inFlight} in flight, ${counts.delayed} delayed`,
    );
  }
}

/**
 * Mirrors the server's rule, so that a bad name fails before any container
 * starts: 1 to 80 letters, digits, hyphens and underscores, ".fifo" counted
 * in the 80.
 */
function checkQueueName(name: string): void {
  const base = name.endsWith(".fifo") ? name.slice(0, -".fifo".length) : name;
  if (base === "" || name.length > 80 || !/^[A-Za-z0-9_-]+$/.test(base)) {
    throw new Error(
      `invalid queue name ${JSON.stringify(name)}: want 1 to 80 letters, digits, hyphens or underscores, ending in .fifo for a FIFO queue`,
    );
  }
}

/** A minisqs container to start. */
export class MinisqsContainer extends GenericContainer {
  private readonly queues: string[] = [];
  private adminToken?: string;

  constructor(image: string = DEFAULT_IMAGE) {
    super(image);
    this.withExposedPorts(PORT)
      .withWaitStrategy(Wait.forHttp("/health", PORT).forStatusCode(200))
      .withStartupTimeout(STARTUP_TIMEOUT_MS);
  }

  /**
   * Creates queues with default attributes when the server starts; a name
   * ending in ".fifo" makes a FIFO queue.
   */
  withQueues(...names: string[]): this {
    for (const name of names) {
      checkQueueName(name);
      if (!this.queues.includes(name)) {
        this.queues.push(name);
      }
    }
    return this;
  }

  /**
   * Starts the server with this admin bearer token (MINISQS_API_TOKEN),
   * which guards the REST API and the test-control API, and has the
   * control helpers send it.
   */
  withAdminToken(token: string): this {
    if (token.trim() === "" || /\s/.test(token)) {
      throw new Error("admin token must be non-empty, without spaces");
    }
    this.adminToken = token;
    return this;
  }

  override async start(): Promise<StartedMinisqsContainer> {
    const env: Record<string, string> = {};
    if (this.queues.length > 0) {
      env.MINISQS_QUEUES = this.queues.join(",");
    }
    if (this.adminToken !== undefined) {
      env.MINISQS_API_TOKEN = this.adminToken;
    }
    this.withEnvironment(env);
    return new StartedMinisqsContainer(await super.start(), this.adminToken);
  }
}

/** A running minisqs container. */
export class StartedMinisqsContainer extends AbstractStartedContainer {
  private client?: SQSClient;

  constructor(
    startedTestContainer: StartedTestContainer,
    private readonly adminToken?: string,
  ) {
    super(startedTestContainer);
  }

  /** The server's URL on the host, such as "http://localhost:32768". */
  getEndpoint(): string {
    return `http://${this.getHost()}:${this.getMappedPort(PORT)}`;
  }

  /**
   * A new SQS client for the container: its endpoint, region us-east-1 and
   * static test credentials; `config` adds to or overrides them (maxAttempts,
   * say).
   */
  getClient(config: SQSClientConfig = {}): SQSClient {
    return new SQSClient({
      region: REGION,
      endpoint: this.getEndpoint(),
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
      ...config,
    });
  }

  /**
   * Asks the server for the URL of the queue called `name`. The server
   * builds it from the host and port the request came to, so it works from
   * the test as it is.
   */
  async getQueueUrl(name: string): Promise<string> {
    this.client ??= this.getClient();
    const out = await this.client.send(new GetQueueUrlCommand({ QueueName: name }));
    if (!out.QueueUrl) {
      throw new Error(`minisqs: no URL for queue ${name}`);
    }
    return out.QueueUrl;
  }

  /**
   * Deletes every queue, message, move task, subscription, fault rule,
   * deduplication window and cooldown. The clock keeps its time.
   */
  async reset(): Promise<void> {
    await this.control("POST", "/reset", undefined, [204]);
  }

  /**
   * Empties the named queues of their messages, deduplication windows and
   * cooldowns, keeping the queues and their settings. An unknown name fails
   * the call (code "queue_not_found") and changes nothing.
   */
  async resetQueues(...names: string[]): Promise<void> {
    if (names.length === 0) {
      throw new Error("minisqs: resetQueues needs at least one queue name; reset resets everything");
    }
    await this.control("POST", "/reset", { queues: names }, [204]);
  }

  /** Reads the server's clock. */
  async clock(): Promise<Clock> {
    return toClock((await this.control("GET", "/clock", undefined, [200])).body);
  }

  /**
   * Moves the server's clock forward by `seconds` (a fraction is fine) and
   * returns the new time. Every time rule sees it before this returns:
   * visibility timeouts and delays end, retention expires messages,
   * deduplication windows lapse.
   */
  async advance(seconds: number): Promise<Clock> {
    if (!(seconds > 0)) {
      throw new Error(`minisqs: advance by ${seconds} s: the clock only moves forward`);
    }
    return toClock((await this.control("POST", "/clock/advance", { seconds }, [200])).body);
  }

  /** Sets a fault rule and returns it as the server keeps it, with its id. */
  async addFault(fault: Fault): Promise<FaultRule> {
    return (await this.control("POST", "/faults", fault, [201])).body as FaultRule;
  }

  /** The fault rules in force, with how many requests each hit. */
  async faults(): Promise<FaultRule[]> {
    return ((await this.control("GET", "/faults", undefined, [200])).body as { faults: FaultRule[] }).faults;
  }

  /** Removes the fault rule with this id. */
  async deleteFault(id: string): Promise<void> {
    await this.control("DELETE", `/faults/${encodeURIComponent(id)}`, undefined, [204]);
  }

  /** Removes every fault rule. */
  async clearFaults(): Promise<void> {
    await this.control("DELETE", "/faults", undefined, [204]);
  }

  /**
   * The server's whole state (queues, messages, move tasks, subscriptions)
   * as one JSON document, for loadState to restore.
   */
  async saveState(): Promise<MinisqsState> {
    return (await this.control("GET", "/state", undefined, [200])).body as MinisqsState;
  }

  /**
   * Replaces the server's whole state with a document saveState returned
   * (or a fixture in its shape, as an object or JSON text). A document that
   * does not parse or breaks a rule is refused whole (status 400), and
   * nothing changes.
   */
  async loadState(state: MinisqsState | string): Promise<void> {
    await this.control("PUT", "/state", typeof state === "string" ? state : JSON.stringify(state), [200, 204]);
  }

  /**
   * Resolves with the queue's counts as soon as the condition holds; when
   * the server's timeout passes first, rejects with a WaitTimeoutError
   * carrying the counts then.
   */
  async wait(condition: WaitCondition): Promise<Counts> {
    const { status, body } = await this.control("POST", "/wait", condition, [200, 408]);
    const { counts } = body as { counts: Counts };
    if (status === 408) {
      throw new WaitTimeoutError(condition, counts);
    }
    return counts;
  }

  /**
   * Up to `limit` of the most recent requests the server served, newest
   * first; without a limit, the server's default (100).
   */
  async requests(limit?: number): Promise<RequestRecord[]> {
    const path = limit === undefined ? "/requests" : `/requests?limit=${limit}`;
    const { body } = await this.control("GET", path, undefined, [200]);
    return (body as { requests: (Omit<RequestRecord, "time"> & { time: string })[] }).requests.map((r) => ({
      ...r,
      time: new Date(r.time),
    }));
  }

  /** Closes the client getQueueUrl keeps, as the container stops. */
  protected override async containerStopping(): Promise<void> {
    this.client?.destroy();
    this.client = undefined;
  }

  /**
   * One call to the control API. `input` is the body: text as it is, any
   * other value as JSON. An answer with one of the `ok` statuses is parsed
   * (when it has a body); any other is a MinisqsApiError.
   */
  private async control(
    method: string,
    path: string,
    input: unknown,
    ok: number[],
  ): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = {};
    if (input !== undefined) {
      headers["content-type"] = "application/json";
    }
    if (this.adminToken !== undefined) {
      headers.authorization = `Bearer ${this.adminToken}`;
    }
    const res = await fetch(this.getEndpoint() + CONTROL_PATH + path, {
      method,
      headers,
      body: input === undefined ? undefined : typeof input === "string" ? input : JSON.stringify(input),
    });
    const text = await res.text();
    if (!ok.includes(res.status)) {
      throw apiError(res.status, text);
    }
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text) };
  }
}

function apiError(status: number, text: string): MinisqsApiError {
  try {
    const err = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }).error;
    if (typeof err?.code === "string" && err.code !== "") {
      return new MinisqsApiError(status, err.code, String(err.message ?? ""));
    }
  } catch {
    // Not JSON: fall through to the body itself.
  }
  const keep = 200;
  const snippet = text.trim();
  return new MinisqsApiError(status, "", snippet.length > keep ? `${snippet.slice(0, keep)}...` : snippet);
}

function toClock(body: unknown): Clock {
  const b = body as { now: string; offsetSeconds: number };
  return { now: new Date(b.now), offsetSeconds: b.offsetSeconds };
}
