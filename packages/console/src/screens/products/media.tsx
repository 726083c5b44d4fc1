/**
 * The product form's media manager (decision `media-uploads`): images uploaded by dropping files on the drop zone or
 * choosing them (each its own `POST /admin/v1/media`, one at a time, with its progress, and the
 * server's refusal shown when it is not an image it takes), then the product's images in order
 * (the first is the card's): drag one by its handle (or focus the handle and use Space and the
 * arrow keys) or use Move up / Move down, type its alt text, remove it. Nothing is the product's
 * until the form is saved (`images: [{mediaId, alt}]` in this order).
 */
import type { Announcements, UniqueIdentifier } from '@dnd-kit/core';
import { arrayMove, useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { useEffect, useId, useRef, useState, type DragEvent } from 'react';
import { MEDIA_MAX_BYTES, useUploadMedia } from '../../data/media.ts';
import { TextField } from '../../ui/components.tsx';
import { errorMessage } from '../../ui/problems.ts';
import { DragHandle, MoveButtons, SortableList, useFocusAfterMove } from '../../ui/sortable.tsx';
import { ALT_MAX, MAX_IMAGES, type ImageDraft } from './draft.ts';

/** A file on its way: waiting its turn, being sent (with the share sent), or refused. */
interface Upload {
  key: string;
  name: string;
  state: 'waiting' | 'uploading' | 'failed';
  progress: number;
  message?: string;
}

let uploadKeys = 0;

/** A thumbnail's address: the 160 px wide copy the media server makes. */
export const thumbnail = (url: string): string => `${url}?w=160`;

export function MediaManager({
  images,
  onChange,
  onPendingChange,
  at,
}: {
  images: readonly ImageDraft[];
  /** Changes the images from what they are then (uploads finish after other edits). */
  onChange: (update: (images: ImageDraft[]) => ImageDraft[]) => void;
  /** Whether uploads are waiting or being sent (the form is not saved meanwhile). */
  onPendingChange: (pending: boolean) => void;
  at: (pointer: string, name: string) => string | undefined;
}) {
  const upload = useUploadMedia();
  const inputId = useId();
  const hintId = useId();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const focusAfterMove = useFocusAfterMove();
  const queue = useRef<Promise<void>>(Promise.resolve());
  /** The images as last rendered, for the checks an upload makes when its turn comes. */
  const current = useRef(images);
  current.current = images;

  const pending = uploads.some((entry) => entry.state !== 'failed');
  useEffect(() => onPendingChange(pending), [pending, onPendingChange]);

  const patch = (key: string, changes: Partial<Upload>) =>
    setUploads((list) => list.map((entry) => (entry.key === key ? { ...entry, ...changes } : entry)));

  /** Sends one file when its turn comes; its entry shows how far it got, or why it was refused. */
  async function send(entry: Upload, file: File) {
    if (current.current.length >= MAX_IMAGES) {
      patch(entry.key, { state: 'failed', message: `A product has at most ${MAX_IMAGES} images.` });
      return;
    }
    if (file.size > MEDIA_MAX_BYTES) {
      patch(entry.key, {
        state: 'failed',
        message: `The file is larger than ${MEDIA_MAX_BYTES / 1024 / 1024} MB, the most an upload may be.`,
      });
      return;
    }
    patch(entry.key, { state: 'uploading', progress: 0 });
    try {
      const media = await upload.mutateAsync({
        file,
        onProgress: (sent) => patch(entry.key, { progress: Math.round(sent * 100) }),
      });
      if (current.current.some((image) => image.mediaId === media.id)) {
        patch(entry.key, { state: 'failed', message: 'This picture is already one of the images.' });
        return;
      }
      onChange((list) =>
        list.some((image) => image.mediaId === media.id)
          ? list
          : [
              ...list,
              { mediaId: media.id, url: media.url, width: media.width, height: media.height, alt: '' },
            ],
      );
      setUploads((list) => list.filter((other) => other.key !== entry.key));
      setAnnouncement(`${file.name} uploaded: image ${current.current.length + 1}.`);
    } catch (error) {
      patch(entry.key, { state: 'failed', message: errorMessage(error) });
    }
  }

  function addFiles(files: FileList | readonly File[]) {
    const list = [...files];
    if (list.length === 0) return;
    const entries = list.map((file) => ({
      key: `upload-${++uploadKeys}`,
      name: file.name,
      state: 'waiting' as const,
      progress: 0,
    }));
    setUploads((existing) => [...existing, ...entries]);
    setAnnouncement(`Uploading ${list.length} file${list.length === 1 ? '' : 's'}.`);
    list.forEach((file, i) => {
      queue.current = queue.current.then(() => send(entries[i]!, file));
    });
  }

  const hasFiles = (event: DragEvent) => [...event.dataTransfer.types].includes('Files');

  const positionOf = (id: UniqueIdentifier) => images.findIndex((image) => image.mediaId === id) + 1;
  const count = images.length;
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up image ${positionOf(active.id)} of ${count}.`,
    onDragOver: ({ active, over: target }) =>
      target
        ? `Image ${positionOf(active.id)} is over position ${positionOf(target.id)} of ${count}.`
        : undefined,
    onDragEnd: ({ over: target }) =>
      target ? `Image dropped at position ${positionOf(target.id)} of ${count}.` : 'Image dropped.',
    onDragCancel: ({ active }) => `Moving cancelled. The image stays at position ${positionOf(active.id)}.`,
  };

  function move(from: number, to: number, button?: 'up' | 'down') {
    if (to < 0 || to >= images.length || from === to) return;
    const image = images[from]!;
    onChange((list) => arrayMove(list, from, to));
    setAnnouncement(`Image ${from + 1} moved to position ${to + 1} of ${images.length}.`);
    if (button) focusAfterMove(image.mediaId, button);
  }

  const listError = at('/images', 'The images');
  return (
    <div className="media-manager">
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      <div
        className={`drop-zone${over ? ' over' : ''}`}
        onDragEnter={(event) => {
          if (!hasFiles(event)) return;
          event.preventDefault();
          setOver(true);
        }}
        onDragOver={(event) => {
          if (!hasFiles(event)) return;
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
        }}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOver(false);
        }}
        onDrop={(event) => {
          event.preventDefault();
          setOver(false);
          addFiles(event.dataTransfer.files);
        }}
      >
        <p>Drop images here, or</p>
        <input
          id={inputId}
          type="file"
          accept="image/*"
          multiple
          className="visually-hidden file-input"
          aria-describedby={hintId}
          onChange={(event) => {
            addFiles(event.target.files ?? []);
            // The same file may be chosen again after a refusal.
            event.target.value = '';
          }}
        />
        <label htmlFor={inputId} className="button">
          Choose images
        </label>
        <p className="hint" id={hintId}>
          JPEG, PNG, WebP, AVIF or GIF, up to 10 MB each; at most {MAX_IMAGES} images. The first image is the
          product card’s.
        </p>
      </div>

      {uploads.length > 0 ? (
        <ul className="uploads" aria-label="Uploads">
          {uploads.map((entry) => (
            <li key={entry.key} className={entry.state}>
              <span className="upload-name">{entry.name}</span>
              {entry.state === 'failed' ? (
                <>
                  <span className="field-error" role="alert">
                    {entry.message}
                  </span>
                  <button
                    type="button"
                    onClick={() => setUploads((list) => list.filter((other) => other.key !== entry.key))}
                  >
                    Dismiss<span className="visually-hidden"> {entry.name}</span>
                  </button>
                </>
              ) : entry.state === 'waiting' ? (
                <span className="muted">Waiting…</span>
              ) : (
                <>
                  <progress max={100} value={entry.progress} aria-label={`Uploading ${entry.name}`} />
                  <span className="muted">{entry.progress < 100 ? `${entry.progress}%` : 'Processing…'}</span>
                </>
              )}
            </li>
          ))}
        </ul>
      ) : null}

      {listError ? <p className="field-error">{listError}</p> : null}
      {images.length === 0 ? (
        <p className="muted">No images yet.</p>
      ) : (
        <>
          <p className="hint" id={`${inputId}-order`}>
            The shop shows them in this order. Drag an image by its handle, or focus the handle and press
            Space, then the arrow keys, then Space again; or use Move up and Move down. Alt text describes the
            picture for people who cannot see it.
          </p>
          <SortableList
            ids={images.map((image) => image.mediaId)}
            className="sortable media-list"
            label="Images, in order"
            announcements={announcements}
            instructions="To move an image, press Space or Enter to pick it up, the up and down arrow keys to move it, Space or Enter to drop it, or Escape to cancel."
            onMove={move}
          >
            {images.map((image, index) => (
              <ImageRow
                key={image.mediaId}
                image={image}
                index={index}
                count={images.length}
                at={at}
                onAlt={(alt) =>
                  onChange((list) =>
                    list.map((other) => (other.mediaId === image.mediaId ? { ...other, alt } : other)),
                  )
                }
                onMove={(to, button) => move(index, to, button)}
                onRemove={() => {
                  onChange((list) => list.filter((other) => other.mediaId !== image.mediaId));
                  setAnnouncement(`Image ${index + 1} removed.`);
                }}
              />
            ))}
          </SortableList>
        </>
      )}
    </div>
  );
}

function ImageRow({
  image,
  index,
  count,
  at,
  onAlt,
  onMove,
  onRemove,
}: {
  image: ImageDraft;
  index: number;
  count: number;
  at: (pointer: string, name: string) => string | undefined;
  onAlt: (alt: string) => void;
  onMove: (to: number, button: 'up' | 'down') => void;
  onRemove: () => void;
}) {
  const sortable = useSortable({ id: image.mediaId });
  const { setNodeRef, transform, transition, isDragging } = sortable;
  const n = index + 1;
  const error = at(`/images/${index}/mediaId`, 'This image');
  return (
    <li
      ref={setNodeRef}
      className={`sortable-item media-item${isDragging ? ' dragging' : ''}${error ? ' invalid' : ''}`}
      style={{ transform: CSS.Transform.toString(transform), transition }}
      data-media-id={image.mediaId}
    >
      <DragHandle label={`Drag image ${n}`} sortable={sortable} />
      <img
        className="media-thumb"
        src={thumbnail(image.url)}
        width={image.width}
        height={image.height}
        alt=""
      />
      <div className="media-fields">
        <p className="media-title">
          <strong>Image {n}</strong>
          {index === 0 ? <span className="badge">Card image</span> : null}
          <span className="muted small">
            {image.width} × {image.height}
          </span>
        </p>
        <TextField
          label={`Alt text for image ${n}`}
          value={image.alt}
          maxLength={ALT_MAX}
          placeholder="e.g. Blue linen shirt, front"
          error={at(`/images/${index}/alt`, 'The alt text')}
          onChange={(event) => onAlt(event.target.value)}
        />
        {error ? <p className="field-error">{error}</p> : null}
      </div>
      <span className="member-actions">
        <MoveButtons id={image.mediaId} name={`image ${n}`} index={index} count={count} onMove={onMove} />
        <button type="button" className="danger" onClick={onRemove}>
          Remove<span className="visually-hidden"> image {n}</span>
        </button>
      </span>
    </li>
  );
}
