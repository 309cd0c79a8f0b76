// Tests of the module against the real image: MINISQS_IMAGE, or the tag
// scripts/docker-test.sh builds from the repository's Dockerfile. Without a
// Docker engine they skip, unless MINISQS_REQUIRE_DOCKER is set, as CI sets
// it, so that a missing engine fails rather than passes.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";

import {
  DeleteMessageCommand,
  ListQueuesCommand,
  QueueDoesNotExist,
  ReceiveMessageCommand,
  SendMessageCommand,
} from "@aws-sdk/client-sqs";
import { getContainerRuntimeClient } from "testcontainers";

import { MinisqsApiError, MinisqsContainer, WaitTimeoutError } from "../dist/index.js";

const image = process.env.MINISQS_IMAGE || "minisqs/minisqs:test";

let noDocker = false;
before(async () => {
  try {
    await getContainerRuntimeClient();
  } catch (err) {
    if (process.env.MINISQS_REQUIRE_DOCKER) {
      throw err;
    }
    noDocker = true;
  }
});

// withContainer starts a container for one test, hands it and a client to
// fn, and stops both after, whatever fn does.
async function withContainer(t, configure, fn) {
  if (noDocker) {
    t.skip("no Docker engine");
    return;
  }
  const container = await configure(new MinisqsContainer(image)).start();
  const client = container.getClient();
  try {
    await fn(container, client);
  } finally {
    client.destroy();
    await container.stop();
  }
}

async function send(client, queueUrl, body, fifo = false) {
  const input = { QueueUrl: queueUrl, MessageBody: body };
  if (fifo) {
    Object.assign(input, { MessageGroupId: "g", MessageDeduplicationId: body });
  }
  return client.send(new SendMessageCommand(input));
}

async function receive(client, queueUrl, visibility = 30) {
  const out = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: visibility,
      WaitTimeSeconds: 1,
      MessageSystemAttributeNames: ["ApproximateReceiveCount"],
    }),
  );
  return out.Messages ?? [];
}

async function queueNames(client) {
  const out = await client.send(new ListQueuesCommand({}));
  return (out.QueueUrls ?? []).map((u) => u.slice(u.lastIndexOf("/") + 1)).sort();
}

async function rejectsWithApiError(promise, status, code) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof MinisqsApiError, `${err} is not a MinisqsApiError`);
    assert.equal(err.status, status);
    assert.equal(err.code, code);
    return true;
  });
}

describe("MinisqsContainer", () => {
  it("starts with its queues, and the client sends and receives", async (t) => {
    await withContainer(t, (c) => c.withQueues("orders", "events.fifo"), async (minisqs, client) => {
      assert.deepEqual(await queueNames(client), ["events.fifo", "orders"]);

      const endpoint = minisqs.getEndpoint();
      const orders = await minisqs.getQueueUrl("orders");
      assert.equal(orders, `${endpoint}/000000000000/orders`);
      if (process.env.TESTCONTAINERS_HOST_OVERRIDE) {
        assert.equal(new URL(endpoint).hostname, process.env.TESTCONTAINERS_HOST_OVERRIDE);
      }

      await send(client, orders, "order 1");
      assert.deepEqual(
        (await receive(client, orders)).map((m) => m.Body),
        ["order 1"],
      );

      const events = await minisqs.getQueueUrl("events.fifo");
      for (const b of ["e1", "e2", "e3"]) {
        await send(client, events, b, true);
      }
      assert.deepEqual(
        (await receive(client, events)).map((m) => m.Body),
        ["e1", "e2", "e3"],
      );
    });
  });

  it("refuses a bad queue name or admin token before starting", () => {
    assert.throws(() => new MinisqsContainer(image).withQueues("ok", "not ok"), /invalid queue name "not ok"/);
    assert.throws(() => new MinisqsContainer(image).withQueues("x".repeat(81)), /invalid queue name/);
    assert.throws(() => new MinisqsContainer(image).withAdminToken(""), /admin token/);
  });

  it("advance ends a visibility timeout at once", async (t) => {
    await withContainer(t, (c) => c.withQueues("orders"), async (minisqs, client) => {
      const orders = await minisqs.getQueueUrl("orders");
      await send(client, orders, "order 1");
      assert.equal((await receive(client, orders, 30)).length, 1);
      assert.equal((await receive(client, orders, 30)).length, 0, "received while in flight");

      const before = await minisqs.clock();
      const start = performance.now();
      const after = await minisqs.advance(31);
      assert.ok(after.now - before.now >= 31_000, `the clock moved from ${before.now.toISOString()} to ${after.now.toISOString()}`);
      assert.ok(after.offsetSeconds >= before.offsetSeconds + 31);

      const back = await receive(client, orders, 30);
      assert.deepEqual(
        back.map((m) => m.Body),
        ["order 1"],
      );
      assert.equal(back[0].Attributes.ApproximateReceiveCount, "2");
      t.diagnostic(`a 30 s visibility timeout ended ${Math.round(performance.now() - start)} ms after advance was called`);

      await assert.rejects(minisqs.advance(0), /only moves forward/);
    });
  });

  it("a fault makes the client fail, and the SDK's retries get past it", async (t) => {
    await withContainer(t, (c) => c.withQueues("orders"), async (minisqs, client) => {
      const orders = await minisqs.getQueueUrl("orders");
      const once = minisqs.getClient({ maxAttempts: 1 });
      try {
        const unavailable = await minisqs.addFault({ action: "SendMessage", queue: "orders", error: "ServiceUnavailable", count: 1 });
        assert.ok(unavailable.id);
        assert.equal(unavailable.error, "ServiceUnavailable");
        await assert.rejects(send(once, orders, "lost"), (err) => {
          assert.equal(err.name, "ServiceUnavailable");
          assert.equal(err.$metadata.httpStatusCode, 503);
          return true;
        });

        // Two throttled attempts, then the SDK's third gets through.
        const throttled = await minisqs.addFault({ action: "SendMessage", error: "ThrottlingException", count: 2 });
        const sent = await send(client, orders, "kept");
        assert.equal(sent.$metadata.attempts, 3);
        assert.deepEqual(
          (await receive(client, orders)).map((m) => m.Body),
          ["kept"],
        );

        const hits = Object.fromEntries((await minisqs.faults()).map((f) => [f.id, f.hits]));
        assert.deepEqual(hits, { [unavailable.id]: 1, [throttled.id]: 2 });
        const faulted = (await minisqs.requests(20)).filter((r) => r.faultId === throttled.id);
        assert.equal(faulted.length, 2);
        for (const r of faulted) {
          assert.equal(r.action, "SendMessage");
          assert.equal(r.protocol, "json");
          assert.equal(r.errorCode, "ThrottlingException");
          assert.ok(r.time instanceof Date && !Number.isNaN(r.time.getTime()));
        }

        // An error the SDK does not retry is its modelled exception.
        const missing = await minisqs.addFault({ action: "ReceiveMessage", error: "QueueDoesNotExist" });
        await assert.rejects(receive(client, orders), QueueDoesNotExist);
        await minisqs.deleteFault(missing.id);
        assert.deepEqual(await receive(client, orders), []);
        await rejectsWithApiError(minisqs.deleteFault(missing.id), 404, "not_found");

        await minisqs.clearFaults();
        assert.deepEqual(await minisqs.faults(), []);
      } finally {
        once.destroy();
      }
    });
  });

  it("reset empties the server, and resetQueues the queues named", async (t) => {
    await withContainer(t, (c) => c.withQueues("orders", "audit"), async (minisqs, client) => {
      const orders = await minisqs.getQueueUrl("orders");
      const audit = await minisqs.getQueueUrl("audit");
      await send(client, orders, "o1");
      await send(client, audit, "a1");

      await minisqs.resetQueues("orders");
      assert.deepEqual(await receive(client, orders), []);
      assert.deepEqual(
        (await receive(client, audit)).map((m) => m.Body),
        ["a1"],
      );
      await rejectsWithApiError(minisqs.resetQueues("orders", "nope"), 404, "queue_not_found");

      await minisqs.reset();
      assert.deepEqual(await queueNames(client), []);
    });
  });

  it("saveState and loadState round-trip queues and messages", async (t) => {
    await withContainer(t, (c) => c.withQueues("orders", "events.fifo"), async (minisqs, client) => {
      const orders = await minisqs.getQueueUrl("orders");
      const events = await minisqs.getQueueUrl("events.fifo");
      for (const b of ["m1", "m2"]) {
        await send(client, orders, b);
        await send(client, events, b, true);
      }
      const state = await minisqs.saveState();
      assert.equal(state.version, 1);

      await minisqs.reset();
      await minisqs.loadState(state);
      assert.deepEqual(await queueNames(client), ["events.fifo", "orders"]);
      assert.deepEqual(
        (await receive(client, events)).map((m) => m.Body),
        ["m1", "m2"],
      );
      assert.deepEqual(
        (await receive(client, orders)).map((m) => m.Body).sort(),
        ["m1", "m2"],
      );

      await rejectsWithApiError(minisqs.loadState('{"version": 1, "queues": [{"name": "not a name"}]}'), 400, "invalid_request");
      assert.deepEqual(await queueNames(client), ["events.fifo", "orders"]);
    });
  });

  it("wait answers when the condition holds, and times out with the counts", async (t) => {
    await withContainer(t, (c) => c.withQueues("orders"), async (minisqs, client) => {
      const orders = await minisqs.getQueueUrl("orders");
      await send(client, orders, "order 1 for alice");
      const seen = await minisqs.wait({ queue: "orders", bodyContains: "alice", timeoutSeconds: 10 });
      assert.equal(seen.visible, 1);

      // A consumer takes the message while the test waits for the queue to
      // empty.
      const consumer = (async () => {
        const out = await client.send(new ReceiveMessageCommand({ QueueUrl: orders, WaitTimeSeconds: 5 }));
        assert.equal(out.Messages?.length, 1);
        await client.send(new DeleteMessageCommand({ QueueUrl: orders, ReceiptHandle: out.Messages[0].ReceiptHandle }));
      })();
      const empty = await minisqs.wait({ queue: "orders", empty: true, timeoutSeconds: 20 });
      await consumer;
      assert.deepEqual({ visible: empty.visible, inFlight: empty.inFlight, delayed: empty.delayed }, { visible: 0, inFlight: 0, delayed: 0 });

      await send(client, orders, "one");
      await assert.rejects(minisqs.wait({ queue: "orders", visible: 5, timeoutSeconds: 1 }), (err) => {
        assert.ok(err instanceof WaitTimeoutError, `${err} is not a WaitTimeoutError`);
        assert.equal(err.counts.visible, 1);
        return true;
      });
      await rejectsWithApiError(minisqs.wait({ queue: "nope", empty: true, timeoutSeconds: 1 }), 404, "queue_not_found");
    });
  });

  it("sends the admin token on control calls", async (t) => {
    const token = "s3cret-admin";
    await withContainer(t, (c) => c.withQueues("orders").withAdminToken(token), async (minisqs, client) => {
      const orders = await minisqs.getQueueUrl("orders");
      await send(client, orders, "m");
      await minisqs.resetQueues("orders");
      assert.deepEqual(await receive(client, orders), []);

      for (const auth of [undefined, "Bearer wrong"]) {
        const res = await fetch(`${minisqs.getEndpoint()}/_minisqs/clock`, { headers: auth ? { authorization: auth } : {} });
        await res.body?.cancel();
        assert.equal(res.status, 401, `GET /_minisqs/clock with ${auth}`);
      }
    });
  });
});
