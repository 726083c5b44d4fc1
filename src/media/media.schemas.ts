import Type, { type Static } from 'typebox';

export const MediaSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String({
      description:
        'Where the image is served: a path on this server, `/media/{storeId}/{sha256}.{ext}`, immutable (cached for a year). Add `?w=` (160, 320, 640, 960, 1280 or 1920) for a resized copy in the best format the client accepts.',
    }),
    width: Type.Integer({ minimum: 1, description: 'Pixels, as displayed (EXIF orientation applied).' }),
    height: Type.Integer({ minimum: 1 }),
    contentType: Type.Union(
      [
        Type.Literal('image/jpeg'),
        Type.Literal('image/png'),
        Type.Literal('image/webp'),
        Type.Literal('image/avif'),
        Type.Literal('image/gif'),
      ],
      { description: 'What the file is, found by decoding it (not from its name).' },
    ),
    bytes: Type.Integer({
      minimum: 1,
      description: 'The size of the file kept and served: the upload encoded again, its pixels alone.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Media' },
);
export type Media = Static<typeof MediaSchema>;

/** The multipart form of an upload, for the OpenAPI document (the route reads the stream itself). */
export const MediaUploadSchema = Type.Object(
  {
    file: Type.String({
      format: 'binary',
      description:
        'The image: JPEG, PNG, WebP, AVIF or GIF, at most MEDIA_MAX_MB (10 MiB) and MEDIA_MAX_PIXELS (40 megapixels by default; fewer for WebP, GIF, AVIF and 16-bit PNG). Exactly one file part; other fields are ignored.',
    }),
  },
  { title: 'MediaUpload', required: ['file'] },
);

export const MediaFileParams = Type.Object(
  {
    storeId: Type.String({ format: 'uuid' }),
    file: Type.String({
      pattern: '^[0-9a-f]{64}\\.(jpg|png|webp|avif|gif)$',
      description: 'The SHA-256 of the upload and its extension, as in the media `url`.',
    }),
  },
  { additionalProperties: false },
);

export const MediaFileQuery = Type.Object(
  {
    w: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description:
          'A width for a resized copy: 160, 320, 640, 960, 1280 or 1920 (others are 400). Never enlarged. Without it, the file kept at upload (its pixels alone, see the upload).',
      }),
    ),
  },
  { additionalProperties: false },
);
