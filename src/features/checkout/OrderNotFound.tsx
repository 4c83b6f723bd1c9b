/** Payment success for an order (or cart) that is not the visitor's, or none: on to their history. */
export default function OrderNotFound({ text, historyPath, linkText }: { text: string; historyPath: string; linkText: string }) {
  return (
    <div className="rounded-xl bg-surface-muted p-4" data-order-not-found>
      <p>{text}</p>
      <a href={historyPath} className="mt-3 inline-block font-semibold text-brand underline">
        {linkText}
      </a>
    </div>
  );
}
