// The S3 stand-in (s3rver) in a process of its own, forked by local/runtime/stand-ins.ts.
//
// Why a process: s3rver signs ListObjectsV2 continuation tokens with DES, which Node 20's
// OpenSSL 3 only offers with --openssl-legacy-provider; the flag must be given when a process
// starts, so the runtime starts this one with it, whatever flags its own process got.
//
// It also answers what s3rver lacks and the pipeline uses: UploadPartCopy and conditional writes.
//
// Protocol (IPC): argv[2] = JSON { directory, buckets, notify }; sends { ready: true, port } once
// listening, or { error } on failure; with `notify`, sends { created: { bucket, key, size, etag,
// eventName } } for every object created (S3's event notifications); the message 'close' stops
// the server and exits. If the runtime goes away (IPC disconnects) this process exits too:
// nothing is left listening.
//
// Every bucket lets a page on loopback POST to it (CORS): the local console's browser sends its
// presigned upload forms straight here, as it sends them to S3 on AWS.
import S3rver from 's3rver';

const { directory, buckets, notify } = JSON.parse(process.argv[2] ?? '{}');

// s3rver allows one wildcard per origin: any port of the loopback address.
const LOOPBACK_CORS = `<CORSConfiguration>
  <CORSRule>
    <AllowedOrigin>http://127.0.0.1:*</AllowedOrigin>
    <AllowedMethod>POST</AllowedMethod>
    <AllowedMethod>GET</AllowedMethod>
    <AllowedHeader>*</AllowedHeader>
    <ExposeHeader>ETag</ExposeHeader>
    <MaxAgeSeconds>600</MaxAgeSeconds>
  </CORSRule>
</CORSConfiguration>`;

const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory,
  silent: true,
  // Signatures are checked: every local client signs with s3rver's own pair, S3RVER/S3RVER.
  configureBuckets: buckets.map((name) => ({ name, configs: [LOOPBACK_CORS] })),
});

// UploadPartCopy, which s3rver refuses (NotImplemented): a part made from a range of a stored
// object, as S3 makes it. audit.csv grows by a new object whose first part is the old one
// (shared/aws/s3-object-store.ts, copyPart). Path-style requests only, as every local client
// sends; ahead of s3rver's router, so its signature check does not see these requests.
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const uploadPartCopy = async (ctx, next) => {
  const copySource = ctx.headers['x-amz-copy-source'];
  const { uploadId, partNumber } = ctx.query;
  if (ctx.method !== 'PUT' || !copySource || !uploadId || !partNumber) return next();
  const bucket = ctx.path.split('/')[1];
  const [sourceBucket, ...sourceKey] = decodeURIComponent(String(copySource)).replace(/^\//, '').split('/');
  const range = /^bytes=(\d+)-(\d+)$/.exec(String(ctx.headers['x-amz-copy-source-range'] ?? ''));
  const object = await ctx.store.getObject(
    sourceBucket,
    sourceKey.join('/'),
    range ? { start: Number(range[1]), end: Number(range[2]) } : undefined,
  );
  ctx.type = 'application/xml';
  if (!object?.content) {
    // The HTTP status through Koa's setter, as S3 answers: no such key, or a range past its end.
    Object.assign(ctx, {
      status: object ? 416 : 404,
      body: `${XML_HEAD}<Error><Code>${object ? 'InvalidRange' : 'NoSuchKey'}</Code></Error>`,
    });
    return;
  }
  const { md5 } = await ctx.store.putPart(bucket, uploadId, partNumber, object.content);
  ctx.body = `${XML_HEAD}<CopyPartResult><LastModified>${new Date().toISOString()}</LastModified><ETag>"${md5}"</ETag></CopyPartResult>`;
};

// Conditional writes, which s3rver ignores: a PutObject or CopyObject with `If-Match: <etag>` (the
// object must still be that one) or `If-None-Match: *` (there must be none) is answered 412
// PreconditionFailed otherwise, as S3 answers. audit.csv is only ever replaced this way, by the
// write that read it (shared/pipeline/audit/audit-file.ts). The check and the write happen under
// one lock per key, so of two conditional writes at once the second sees the first's object.
const keyLocks = new Map();
const conditionalWrite = async (ctx, next) => {
  const ifMatch = ctx.headers['if-match'];
  const ifNoneMatch = ctx.headers['if-none-match'];
  if (ctx.method !== 'PUT' || ctx.query.uploadId || (!ifMatch && !ifNoneMatch)) return next();
  const [, bucket, ...key] = ctx.path.split('/');
  const lockKey = `${bucket}/${key.join('/')}`;
  const before = keyLocks.get(lockKey) ?? Promise.resolve();
  let release;
  const held = new Promise((resolve) => {
    release = resolve;
  });
  const mine = before.then(() => held);
  keyLocks.set(lockKey, mine);
  await before;
  try {
    const name = decodeURIComponent(key.join('/'));
    const current = (await ctx.store.existsObject(bucket, name))
      ? (await ctx.store.getMetadata(bucket, name)).etag
      : null;
    const refused = ifNoneMatch ? current !== null : current !== String(ifMatch);
    if (refused) {
      Object.assign(ctx, {
        status: 412,
        type: 'application/xml',
        body: `${XML_HEAD}<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>${ifNoneMatch ? 'If-None-Match' : 'If-Match'}</Condition></Error>`,
      });
      return;
    }
    await next();
  } finally {
    release();
    if (keyLocks.get(lockKey) === mine) keyLocks.delete(lockKey);
  }
};

// Koa composes its middleware when the server starts: these go just before the router.
server.middleware.splice(server.middleware.length - 1, 0, uploadPartCopy, conditionalWrite);

if (notify) {
  server.on('event', (event) => {
    for (const record of event.Records ?? []) {
      if (!String(record.eventName).startsWith('ObjectCreated:')) continue;
      const { bucket, object } = record.s3;
      process.send?.({
        created: {
          bucket: bucket.name,
          // As stored: s3rver does not URL-encode the key as S3's notifications do.
          key: String(object.key),
          size: object.size ?? 0,
          etag: object.eTag ?? '',
          eventName: record.eventName,
        },
      });
    }
  });
}

const stop = async (code) => {
  try {
    await server.close();
  } finally {
    process.exit(code);
  }
};

try {
  const { port } = await server.run();
  process.send({ ready: true, port });
} catch (error) {
  process.send({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

process.on('message', (message) => {
  if (message === 'close') void stop(0);
});
process.on('disconnect', () => void stop(0));
