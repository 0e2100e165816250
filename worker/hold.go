package worker

// Options.Hold (the owner's delivery switch) applied to a claim.

// claimable is the topics a claim may take: nil (all) unless Hold holds
// some, then the registered topics it does not hold; any is false when it
// holds every one.
func (r *run) claimable() (topics []string, any bool) {
	if r.w.o.Hold == nil {
		return nil, true
	}
	all := r.w.o.Registry.Topics()
	for _, t := range all {
		if !r.w.o.Hold(r.ctx, t) {
			topics = append(topics, t)
		}
	}
	if len(topics) == len(all) {
		return nil, true
	}
	return topics, len(topics) > 0
}
