/// A discrete-event queue: the earliest first, and among equal times the first scheduled first,
/// so a run is a function of its seed.
struct EventQueue<Event> {
    private struct Entry {
        var time: Double
        var order: Int
        var event: Event
        func precedes(_ other: Entry) -> Bool { (time, order) < (other.time, other.order) }
    }

    private var heap: [Entry] = []
    private var scheduled = 0

    var isEmpty: Bool { heap.isEmpty }
    var nextTime: Double? { heap.first?.time }

    mutating func push(_ event: Event, at time: Double) {
        heap.append(Entry(time: time, order: scheduled, event: event))
        scheduled += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (time: Double, event: Event)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            if first == parent { break }
            heap.swapAt(parent, first)
            parent = first
        }
        return (top.time, top.event)
    }
}
