// The kept samples of an observation: a growing array of doubles, grown
// with realloc. A std::vector copies every sample into a new block at each
// doubling (and touches the new pages); glibc's realloc moves a large
// block's pages instead (mremap), so an observation of a million samples
// is written once. The same values as a vector, in the same order.
#ifndef SERQ_STATS_SAMPLE_BUFFER_H_
#define SERQ_STATS_SAMPLE_BUFFER_H_

#include <cstddef>
#include <cstdlib>
#include <new>

#include "absl/types/span.h"

namespace serq::report {

class SampleBuffer {
 public:
  SampleBuffer() = default;
  SampleBuffer(const SampleBuffer&) = delete;
  SampleBuffer& operator=(const SampleBuffer&) = delete;
  SampleBuffer(SampleBuffer&& other) noexcept
      : data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
  }
  SampleBuffer& operator=(SampleBuffer&& other) noexcept {
    if (this != &other) {
      std::free(data_);
      data_ = other.data_;
      size_ = other.size_;
      capacity_ = other.capacity_;
      other.data_ = nullptr;
      other.size_ = other.capacity_ = 0;
    }
    return *this;
  }
  ~SampleBuffer() { std::free(data_); }

  size_t size() const { return size_; }
  const double* begin() const { return data_; }
  const double* end() const { return data_ + size_; }
  operator absl::Span<const double>() const { return absl::Span<const double>(data_, size_); }

  void push_back(double x) {
    if (size_ == capacity_) Grow(size_ + 1);
    data_[size_++] = x;
  }
  // k copies of x.
  void append(size_t k, double x) {
    if (size_ + k > capacity_) Grow(size_ + k);
    for (size_t i = 0; i < k; ++i) data_[size_ + i] = x;
    size_ += k;
  }
  // Empty, its memory given back.
  void release() {
    std::free(data_);
    data_ = nullptr;
    size_ = capacity_ = 0;
  }

 private:
  // At least `need` slots: doubling, from 16.
  void Grow(size_t need) {
    size_t capacity = capacity_ < 16 ? 16 : capacity_;
    while (capacity < need) capacity *= 2;
    void* grown = std::realloc(data_, capacity * sizeof(double));
    if (grown == nullptr) throw std::bad_alloc();
    data_ = static_cast<double*>(grown);
    capacity_ = capacity;
  }

  double* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace serq::report

#endif  // SERQ_STATS_SAMPLE_BUFFER_H_
