"""What makes the tokenizer fast, outside the course's steps: read it after step 08, if at all.

- :mod:`bpe_ref.fast.encoder`: the default path of :meth:`~bpe_ref.tokenizer.Tokenizer.encode`
  (``method=None``): the step-08 encoders behind caches of text segments and of pieces of
  pretokens, tuned for speed.
- :mod:`bpe_ref.fast.exact_counts`: exact token counts of slices, of growing text, and the longest
  prefix within a budget (``Tokenizer.count``, ``interval_counter``, ``appender``, ``split_at``),
  from the hard boundaries where encodings of pieces add up.

No page or lab teaches this code, and no step's module imports it: the steps' modules are the
course's reading path (the README's table); :class:`~bpe_ref.tokenizer.Tokenizer` builds this
package on them for its default path and its counting methods.
"""
