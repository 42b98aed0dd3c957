/**
 * The console's FileLinks port on S3: presigned POST forms and presigned GETs, signed with the
 * function's own credentials. What a signed request may do is at most what the role may do,
 * and the POST policy narrows it to one key, one content type and a size range, which S3
 * checks when the form arrives.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { FileLinks } from '../console/ports.js';

export type S3FileLinksConfig = { client: S3Client; bucket: string };

/** RFC 6266: an ASCII fallback name and the UTF-8 one, so accents survive in every browser. */
export const contentDisposition = (disposition: 'attachment' | 'inline', fileName: string): string => {
  const ascii = fileName
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
};

export const createS3FileLinks = ({ client, bucket }: S3FileLinksConfig): FileLinks => ({
  uploadForm: async ({ key, contentType, maxBytes, expiresSeconds }) => {
    const { url, fields } = await createPresignedPost(client, {
      Bucket: bucket,
      Key: key,
      Conditions: [
        ['eq', '$key', key],
        ['eq', '$Content-Type', contentType],
        ['content-length-range', 1, maxBytes],
      ],
      Fields: { 'Content-Type': contentType },
      Expires: expiresSeconds,
    });
    return { url, fields };
  },
  downloadUrl: ({ key, fileName, disposition, contentType, expiresSeconds }) =>
    getSignedUrl(
      client,
      new GetObjectCommand({
        Bucket: bucket,
        Key: key,
        ResponseContentDisposition: contentDisposition(disposition, fileName),
        ResponseContentType: contentType,
      }),
      { expiresIn: expiresSeconds },
    ),
});
