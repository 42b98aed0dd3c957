/**
 * The slot leases on DynamoDB (the port is shared/pipeline/core/slot-leases.ts): how the pipeline keeps the organisation's classifications in progress
 * under the service's cap (docs/architecture.md, property 1).
 *
 * A classification stays `in_progress` at the service for about a minute after the Lambda
 * that created it has returned, so Lambda concurrency cannot bound it. Instead a row holds
 * a lease from before its POST until the classification leaves `in_progress`:
 *
 *   acquire ─▶ POST /classifications ─▶ poll … poll (renewed) ─────▶ final/pending_data ─▶ release
 *      │                                                                                     │
 *      └────────────────────── holder = the row attempt, not the execution ──────────────────┘
 *
 * All leases of one cap scope live in ONE DynamoDB item, a map of holder → expiry:
 *
 *   { pk: "slots#<scope>", holders: { "<batch>:<row>#a1": 1763726400000, … } }
 *
 * so every change is a single-item conditional write (no transactions: property 10) and
 * the count is the map's size, never a separate counter that could drift:
 *
 * - acquire: SET holders.#h = :expiry IF size(holders) < :cap AND attribute_not_exists(holders.#h)
 * - release: REMOVE holders.#h IF attribute_exists(holders.#h)
 * - renew:   SET holders.#h = :expiry IF attribute_exists(holders.#h)
 *
 * Idempotent by holder: acquiring a lease already held succeeds (and renews it), releasing
 * one not held is a no-op. A lease whose holder died is recovered once its expiry passes:
 * the next acquirer that finds the scope full removes expired holders, each removal
 * conditional on the expiry it saw, so a holder that renewed in between keeps its slot.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

import type { SlotLeases } from '../pipeline/core/slot-leases.js';

export type DynamoSlotLeasesConfig = {
  client: DynamoDBClient | DynamoDBDocumentClient;
  tableName: string;
  /** One cap scope per organisation (API key): all batches share it. */
  scope: string;
  /** Partition key attribute name of the table. */
  partitionKey?: string;
};

const isConditionFailure = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException ||
  (error as { name?: string })?.name === 'ConditionalCheckFailedException';

/** DynamoDB rejects a SET on `holders.#h` while `holders` does not exist yet. */
const isMissingMap = (error: unknown): boolean =>
  (error as { name?: string })?.name === 'ValidationException';

/** What every operation shares: the document client and where the scope's one item lives. */
type ScopeItem = {
  doc: DynamoDBDocumentClient;
  TableName: string;
  pkName: string;
  key: Record<string, string>;
  /** The item's creation, started by the first acquire; see {@link ensureItemOnce}. */
  itemReady: Promise<void> | null;
};

/** A `SlotLeases` method that takes the scope's item first. */
type OnItem<F> = F extends (...args: infer A) => infer R ? (item: ScopeItem, ...args: A) => R : never;

/** Creates the scope's item once; a concurrent creator winning is fine. */
const ensureItem = async ({ doc, TableName, pkName, key }: ScopeItem) => {
  try {
    await doc.send(
      new PutCommand({
        TableName,
        Item: { ...key, holders: {} },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': pkName },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

// On a missing item `size(holders) < :cap` is simply false, so the item must exist
// before the first acquire: created once per process (a cold start), idempotently.
const ensureItemOnce = (item: ScopeItem): Promise<void> => {
  item.itemReady ??= ensureItem(item).catch((error) => {
    item.itemReady = null;
    throw error;
  });
  return item.itemReady;
};

const readHolders = async ({ doc, TableName, key }: ScopeItem): Promise<Record<string, number>> => {
  const { Item } = await doc.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }));
  return (Item?.holders as Record<string, number> | undefined) ?? {};
};

/**
 * One conditional write on one holder's entry: the holders after it when it applied, null
 * when its condition did not hold (or, before the first acquire, the map does not exist yet).
 */
const updateHolderIf = async (
  { doc, TableName, key }: ScopeItem,
  holder: string,
  update: string,
  condition: string,
  values?: Record<string, number>,
): Promise<Record<string, number> | null> => {
  try {
    const { Attributes } = await doc.send(
      new UpdateCommand({
        TableName,
        Key: key,
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: { '#h': holder },
        ExpressionAttributeValues: values,
        // The item is one small map: returning it counts the slots in use without a second read.
        ReturnValues: 'ALL_NEW',
      }),
    );
    return (Attributes?.holders as Record<string, number> | undefined) ?? {};
  } catch (error) {
    if (isConditionFailure(error) || isMissingMap(error)) return null;
    throw error;
  }
};

const trySet = async (item: ScopeItem, holder: string, expiresAt: number, cap: number) => {
  await ensureItemOnce(item);
  return updateHolderIf(
    item,
    holder,
    'SET holders.#h = :expiry',
    'size(holders) < :cap AND attribute_not_exists(holders.#h)',
    { ':expiry': expiresAt, ':cap': cap },
  );
};

const recoverExpired: OnItem<SlotLeases['recoverExpired']> = async (item, now) => {
  const recovered: string[] = [];
  for (const [holder, expiresAt] of Object.entries(await readHolders(item))) {
    // Conditional on the expiry we saw, so a holder that renewed in between keeps its slot.
    const removed =
      expiresAt <= now &&
      (await updateHolderIf(item, holder, 'REMOVE holders.#h', 'holders.#h = :seen', { ':seen': expiresAt }));
    if (removed) recovered.push(holder);
  }
  return recovered;
};

const setIfHeld = (item: ScopeItem, holder: string, expiresAt: number) =>
  updateHolderIf(item, holder, 'SET holders.#h = :expiry', 'attribute_exists(holders.#h)', {
    ':expiry': expiresAt,
  });

const renew: OnItem<SlotLeases['renew']> = async (item, { holder, ttlMs, now }) =>
  (await setIfHeld(item, holder, now + ttlMs)) !== null;

const inUse = async (item: ScopeItem) => Object.keys(await readHolders(item)).length;
const sizeOf = (holders: Record<string, number>) => Object.keys(holders).length;

const acquire: OnItem<SlotLeases['acquire']> = async (item, { holder, cap, ttlMs, now }) => {
  if (cap < 1) return { acquired: false, inUse: await inUse(item), recovered: [] };
  // On the path of every freed slot: one write when a slot is free, nothing read before or after.
  const taken = await trySet(item, holder, now + ttlMs, cap);
  if (taken) return { acquired: true, alreadyHeld: false, inUse: sizeOf(taken) };
  // Refused: either we already hold it (a retry of the same attempt), or the scope is full.
  const renewed = await setIfHeld(item, holder, now + ttlMs);
  if (renewed) return { acquired: true, alreadyHeld: true, inUse: sizeOf(renewed) };
  const recovered = await recoverExpired(item, now);
  const retaken = recovered.length > 0 ? await trySet(item, holder, now + ttlMs, cap) : null;
  if (retaken) return { acquired: true, alreadyHeld: false, inUse: sizeOf(retaken) };
  return { acquired: false, inUse: await inUse(item), recovered };
};

const release: OnItem<SlotLeases['release']> = async (item, holder) =>
  (await updateHolderIf(item, holder, 'REMOVE holders.#h', 'attribute_exists(holders.#h)')) !== null;

const list: OnItem<SlotLeases['list']> = async (item) =>
  Object.entries(await readHolders(item)).map(([holder, expiresAt]) => ({ holder, expiresAt }));

export const createDynamoSlotLeases = (config: DynamoSlotLeasesConfig): SlotLeases => {
  const pkName = config.partitionKey ?? 'pk';
  const item: ScopeItem = {
    doc:
      config.client instanceof DynamoDBDocumentClient
        ? config.client
        : DynamoDBDocumentClient.from(config.client),
    TableName: config.tableName,
    pkName,
    key: { [pkName]: `slots#${config.scope}` },
    itemReady: null,
  };
  return {
    acquire: (request) => acquire(item, request),
    renew: (request) => renew(item, request),
    release: (holder) => release(item, holder),
    list: () => list(item),
    recoverExpired: (now) => recoverExpired(item, now),
  };
};
