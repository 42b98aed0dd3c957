/**
 * The bucket's port for the functions whose bucket streams (`objects.streams` in catalogue.ts):
 * bucket-port.ts's store, given the upload of streams of unknown length (in parts, through
 * `@aws-sdk/lib-storage`), which only these functions' bundles hold.
 */
import { uploadStream } from '../shared/aws/s3-stream-upload.js';
import type { PipelinePorts } from '../shared/pipeline/core/ports.js';
import { bucketStore } from './bucket-port.js';
import { once } from './environment.js';

/** The bucket of a function that streams, built once per container. */
export const streamingObjects = once((): PipelinePorts['objects'] => bucketStore(uploadStream));
