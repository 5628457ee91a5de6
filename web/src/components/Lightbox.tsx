// A full-size view of a step image; click or Escape closes it.
import { useEffect } from "preact/hooks";

/** Shows `src` over the page. */
export function Lightbox({ src, alt, onClose }: { src: string; alt: string; onClose: () => void }) {
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose();
    };
    window.addEventListener("keydown", key);
    return () => window.removeEventListener("keydown", key);
  }, [onClose]);
  return (
    <div class="lightbox" role="dialog" aria-label={alt} onClick={onClose} data-testid="lightbox">
      <img src={src} alt={alt} />
      <button class="lightbox-close btn" aria-label="Close" onClick={onClose}>
        ✕
      </button>
    </div>
  );
}
