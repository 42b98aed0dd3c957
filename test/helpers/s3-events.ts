/** The EventBridge event S3 sends when an object is written, as Prepare receives it. */
export const objectCreatedEvent = (bucket: string, key: string, etag = 'etag-1') => ({
  version: '0',
  id: 'e-1',
  'detail-type': 'Object Created',
  source: 'aws.s3',
  account: '111122223333',
  time: '2026-11-21T12:00:00Z',
  region: 'sa-east-1',
  resources: [`arn:aws:s3:::${bucket}`],
  detail: {
    version: '0',
    bucket: { name: bucket },
    object: { key, size: 100, etag, sequencer: '01' },
    'request-id': 'r-1',
    requester: '111122223333',
    reason: 'PutObject',
  },
});
